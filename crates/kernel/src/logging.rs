//! Where log lines go and how they look: plain text for a person at a terminal
//! (the default), or one JSON object per line for a container platform's log
//! collector (`--log-format json`, `SWITCHBOARD_LOG_FORMAT=json`).

use std::io::IsTerminal;

use tracing_subscriber::EnvFilter;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines (colours only on a terminal).
    Text,
    /// One JSON object per line: timestamp, level, target, message, the event's
    /// fields and the request's span (its request id).
    Json,
}

/// `RUST_LOG` chooses what is logged (an `EnvFilter`). The default is info
/// without the database drivers' statements and without the line per request
/// (it costs about a tenth of a GET's throughput: docs/performance.md, "Logs");
/// `RUST_LOG=info` adds it.
pub fn init(format: LogFormat) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| {
        EnvFilter::new(format!("info,sqlx=warn,sea_orm=warn,{}=warn", crate::telemetry::REQUEST_LOG))
    });
    let builder = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr);
    match format {
        // Colour codes only for a person at a terminal, not into log files.
        LogFormat::Text => builder.with_ansi(std::io::stderr().is_terminal()).init(),
        LogFormat::Json => builder.json().flatten_event(true).with_current_span(true).with_span_list(false).init(),
    }
}
