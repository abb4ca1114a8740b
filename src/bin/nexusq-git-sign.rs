//! git's signing program (`gpg.x509.program`): everything is in `nexusq::cli::git_sign`.

fn main() {
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    std::process::exit(nexusq::cli::git_sign::main(&args));
}
