//! `myriad-bench`: runs the seed experiments against myriad and MariaDB side by side.
fn main() {
    eprintln!("myriad-bench: not built yet");
    std::process::exit(1);
}
