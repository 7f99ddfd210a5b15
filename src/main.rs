use clap::Parser;

// Requests allocate and free many small objects across threads (sea-orm's
// statements and rows, JSON): glibc's allocator spent about a fifth of the
// server's CPU on it under load (docs/performance.md). Without transparent
// huge pages (`no_thp`): with them mimalloc's arenas added ~18 MB of RSS.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let cli = switchboard::cli::Cli::parse();
    switchboard::logging::init(cli.log_format());
    match switchboard::cli::run(cli).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            // One line: what failed, with every cause, naming the setting to change.
            eprintln!("error: {err:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
