//! The `myriad` server binary; everything lives in crates/server.
fn main() -> std::process::ExitCode {
    myriad_server::main()
}
