use std::io::IsTerminal;

use tracing_subscriber::EnvFilter;

// Requests allocate and free many small objects across threads (sea-orm's
// statements and rows, JSON): glibc's allocator spent about a fifth of the
// server's CPU on it under load (docs/performance.md). Without transparent
// huge pages (`no_thp`): with them mimalloc's arenas added ~18 MB of RSS.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info,sqlx=warn,sea_orm=warn")))
        .with_writer(std::io::stderr)
        // Colour codes only for a person at a terminal, not into log files.
        .with_ansi(std::io::stderr().is_terminal())
        .init();
    match switchboard::cli::run().await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
