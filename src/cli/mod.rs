//! The command line: clap definitions, one module per command, and the shared context they use.
//! No crypto here: commands call `vault` and `identity`, and print what they return.

pub mod age_cmd;
pub mod age_plugin;
pub mod agent_cmd;
pub mod args;
mod backup_cmd;
mod bench_cmd;
mod completions;
mod contacts_cmd;
pub mod context;
mod crypt_cmd;
mod doctor_cmd;
pub mod error;
pub mod git_sign;
pub mod hardening;
mod identity_cmd;
mod init;
pub mod io;
mod kdf_options;
mod kem_cmd;
mod manpage;
mod openpgp_cmd;
pub mod output;
pub mod password;
mod pipeline;
mod prompt;
mod recipients;
mod recover_cmd;
mod report_cmd;
mod rotate_cmd;
mod sign_cmd;
pub mod state;
pub mod unused_options;
mod vault_cmd;
pub mod vault_path;
mod words_prompt;

use crate::cli::error::{Error, Result};
use args::{AgentCommand, BackupCommand, Cli, Command, IdentityCommand, VaultCommand};
pub use context::Context;

/// Run a parsed command line.
pub fn run(cli: Cli) -> Result<()> {
    // The background agent keeps nothing its starter had open (docs/agent.md): closed before
    // anything of ours is opened, the signal handler's pipe included.
    if matches!(cli.command, Command::Agent(AgentCommand::Serve(_))) {
        hardening::close_inherited_descriptors();
    }
    // SIGINT, SIGTERM and SIGHUP remove the temporary files of outputs and saves, then exit
    // with 128 + the signal (nexusq_core::fs::cleanup). Installed first, so every command ends the
    // same way whenever the signal comes.
    nexusq_core::fs::cleanup::install().map_err(|e| {
        Error::io(
            e.to_string(),
            "an interrupted command could leave a temporary file; try again",
        )
    })?;
    let ctx = Context::new(cli.global, &cli.early, &cli.command)?;
    match cli.command {
        Command::Init(a) => init::run(&ctx, &a),
        Command::Vault(VaultCommand::Open) => vault_cmd::open(&ctx),
        Command::Vault(VaultCommand::Unlock { .. }) => vault_cmd::unlock(&ctx),
        Command::Vault(VaultCommand::Passwd { kdf, .. }) => vault_cmd::passwd(&ctx, &kdf),
        Command::Identity(IdentityCommand::Export {
            output,
            age_plugin_identity: true,
            ..
        }) => age_cmd::export_plugin_identity(&ctx, output.as_deref()),
        Command::Identity(IdentityCommand::Export {
            output,
            openpgp: true,
            user_id,
            ..
        }) => openpgp_cmd::export(&ctx, output.as_deref(), user_id.as_deref()),
        Command::Identity(IdentityCommand::Export {
            output,
            full_history,
            unlock,
            age,
            force,
            ..
        }) => identity_cmd::export(
            &ctx,
            output.as_deref(),
            identity_cmd::ExportOptions {
                full_history,
                unlock,
                age,
                force,
            },
        ),
        Command::Identity(IdentityCommand::Show { file, age: true }) => {
            age_cmd::show_recipient(&ctx, &file)
        }
        Command::Identity(IdentityCommand::Show { file, .. }) => identity_cmd::show(&ctx, &file),
        Command::Identity(IdentityCommand::History) => identity_cmd::history(&ctx),
        Command::Identity(IdentityCommand::Revoke {
            file, output, yes, ..
        }) => identity_cmd::revoke(&ctx, &file, output.as_deref(), yes),
        Command::Rotate(a) => rotate_cmd::run(&ctx, &a),
        Command::Sign(a) => sign_cmd::sign(&ctx, &a),
        Command::Verify(a) => sign_cmd::verify(&ctx, &a),
        Command::Encapsulate(a) => kem_cmd::encapsulate(&ctx, &a),
        Command::Decapsulate(a) => kem_cmd::decapsulate(&ctx, &a),
        Command::Encrypt(a) => crypt_cmd::encrypt(&ctx, &a),
        Command::Decrypt(a) => crypt_cmd::decrypt(&ctx, &a),
        Command::Bench(a) => bench_cmd::run(&ctx, &a),
        Command::Report(a) => report_cmd::run(&ctx, &a),
        Command::Backup(BackupCommand::Phrase { output, .. }) => {
            backup_cmd::phrase(&ctx, output.as_deref())
        }
        Command::Backup(BackupCommand::Shares {
            threshold,
            count,
            output,
            ..
        }) => backup_cmd::shares(&ctx, threshold, count, &output),
        Command::Backup(BackupCommand::Check { words }) => backup_cmd::check(&ctx, &words),
        Command::Backup(BackupCommand::Kit { output, words, .. }) => {
            backup_cmd::kit(&ctx, &output, &words)
        }
        Command::Recover(a) => recover_cmd::run(&ctx, &a),
        Command::Contacts(c) => contacts_cmd::run(&ctx, &c),
        Command::Doctor(a) => doctor_cmd::run(&ctx, &a),
        Command::Agent(AgentCommand::Start(a)) => agent_cmd::start(&ctx, &a),
        Command::Agent(AgentCommand::Status) => agent_cmd::status(&ctx),
        Command::Agent(AgentCommand::Stop) | Command::Lock => agent_cmd::stop(&ctx),
        Command::Agent(AgentCommand::Serve(a)) => agent_cmd::serve(&ctx, &a),
        Command::Manpage => {
            use clap::CommandFactory;
            // Rendered in memory first, so a reader that goes away (`| head`) is seen in one
            // place, by write_generated.
            let page = manpage::render(Cli::command());
            write_generated(page.as_bytes(), "the man page")
        }
        Command::Completions { shell } => {
            use clap::CommandFactory;
            // clap_complete panics when its writer fails: generated in memory instead.
            let script = completions::script(shell, Cli::command());
            write_generated(&script, "the completions")
        }
    }
}

/// Write generated text (man page, completions) to stdout. A reader that stopped reading
/// (`nexusq manpage | head`, EPIPE) is not an error: stop quietly with exit 0.
fn write_generated(bytes: &[u8], what: &str) -> Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Error::io(
            format!("cannot write {what}: {e}"),
            "check where stdout goes",
        )),
    }
}
