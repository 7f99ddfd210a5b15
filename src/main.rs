// Requests allocate and free many small objects across threads (sea-orm's
// statements and rows, JSON): glibc's allocator spent about a fifth of the
// server's CPU on it under load (docs/performance.md). Without transparent
// huge pages (`no_thp`): with them mimalloc's arenas added ~18 MB of RSS.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

// Everything else is in the library (`cli::main`), where it is compiled once.
fn main() -> std::process::ExitCode {
    switchboard::cli::main()
}
