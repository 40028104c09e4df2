//! The `myriad` server binary; everything lives in crates/server.

/// mimalloc: per-thread free lists without glibc's consolidation passes, which showed up
/// as ~15% of the server's time under sysbench (rows and packets are many small buffers).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    myriad_server::main()
}
