//! Password, new-password and saving options a command does not use (docs/cli.md, "Options
//! a command does not use"). Before the command name, where aliases and wrapper scripts put
//! them (`alias nq='nexusq --password-file ~/.config/nq.pw'`), a command that does not use one
//! accepts it and says so in one note on stderr. Two cases are refused: a password option of
//! the other kind where the command asks for a password anyway (`recover`, `init`), and a
//! password on stdin, which the command could read as its data. After the command name, where
//! someone put it for that command, it stays a usage error, which names the commands that use
//! it and says it may go before the command.

use super::args::{
    AgentCommand, BackupCommand, Cli, Command, ContactsCommand, EarlyArgs, IdentityCommand,
    VaultCommand,
};
use super::error::Error;
use super::password::Source;
use std::ffi::OsString;

/// One group of per-command options: who uses them, in the words of notes and hints.
struct Group {
    /// The options, as typed.
    options: &'static [&'static str],
    /// "the commands that unlock the vault".
    for_whom: &'static str,
}

const PASSWORD: Group = Group {
    options: &["--password-file", "--password-fd"],
    for_whom: "the commands that unlock the vault",
};
const NEW_PASSWORD: Group = Group {
    options: &["--new-password-file", "--new-password-fd"],
    for_whom: "`vault passwd` and `recover`",
};
const WRITER: Group = Group {
    options: &["--lock-timeout", "--allow-shared-storage"],
    for_whom: "the commands that change the vault or the contacts book",
};

/// Which of the groups a command uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Takes {
    pub password: bool,
    pub new_password: bool,
    pub writer: bool,
}

/// The options of each group given before the command name.
fn given(early: &EarlyArgs) -> [(&'static Group, Vec<&'static str>); 3] {
    let some = |set: bool, name: &'static str| set.then_some(name);
    [
        (
            &PASSWORD,
            [
                some(early.password.password_file.is_some(), "--password-file"),
                some(early.password.password_fd.is_some(), "--password-fd"),
            ]
            .into_iter()
            .flatten()
            .collect(),
        ),
        (
            &NEW_PASSWORD,
            [
                some(
                    early.new_password.new_password_file.is_some(),
                    "--new-password-file",
                ),
                some(
                    early.new_password.new_password_fd.is_some(),
                    "--new-password-fd",
                ),
            ]
            .into_iter()
            .flatten()
            .collect(),
        ),
        (
            &WRITER,
            [
                some(early.writer.lock_timeout.is_some(), "--lock-timeout"),
                some(early.writer.allow_shared_storage, "--allow-shared-storage"),
            ]
            .into_iter()
            .flatten()
            .collect(),
        ),
    ]
}

/// "a", "a and b", "a, b and c".
fn and_list(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => (*one).to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// The options given before `command`'s name that it does not use: the note that says so
/// (None when there are none), or the error of a password option of the other kind.
pub(super) fn unused(
    early: &EarlyArgs,
    command: &Command,
    takes: Takes,
) -> Result<Option<String>, Error> {
    let name = command_name(command);
    let [password, new_password, writer] = given(early);
    for (group, options) in [&password, &new_password] {
        if let (Some(option), Some(instead)) = (options.first(), other_kind(name, group)) {
            return Err(Error::usage(
                format!(
                    "`{name}` does not read {option}: the password it asks for is the new vault's"
                ),
                format!("{instead} (or asks for it at the terminal)"),
            ));
        }
    }
    // A password on stdin that the command does not read could be read as its data (an input
    // that defaults to stdin) and go where the data goes: refused, as `password::check_source`
    // refuses it for a command that does read it.
    let on_stdin = [
        (
            !takes.password,
            Source::from_options(
                early.password.password_file.as_ref(),
                early.password.password_fd,
            ),
            &password.1,
        ),
        (
            !takes.new_password,
            Source::from_options(
                early.new_password.new_password_file.as_ref(),
                early.new_password.new_password_fd,
            ),
            &new_password.1,
        ),
    ];
    for (unused, source, options) in on_stdin {
        if let (true, Some(option)) = (unused && source.is_stdin(), options.first()) {
            return Err(Error::usage(
                format!(
                    "`{name}` does not use {option}, and the password it gives is on stdin, \
                     where `{name}` may read its data"
                ),
                format!("leave {option} out for `{name}`"),
            ));
        }
    }
    let unused: Vec<(&Group, Vec<&str>)> = [
        (password, takes.password),
        (new_password, takes.new_password),
        (writer, takes.writer),
    ]
    .into_iter()
    .filter(|((_, options), used)| !used && !options.is_empty())
    .map(|(g, _)| g)
    .collect();
    if unused.is_empty() {
        return Ok(None);
    }
    let all: Vec<&str> = unused.iter().flat_map(|(_, o)| o.iter().copied()).collect();
    let verb = if all.len() == 1 { "is" } else { "are" };
    let why = match unused.as_slice() {
        [(group, options)] => {
            let pronoun = if options.len() == 1 {
                "it is"
            } else {
                "they are"
            };
            format!("{pronoun} for {}", group.for_whom)
        }
        groups => groups
            .iter()
            .map(|(group, options)| {
                let verb = if options.len() == 1 { "is" } else { "are" };
                format!("{} {verb} for {}", and_list(options), group.for_whom)
            })
            .collect::<Vec<_>>()
            .join("; "),
    };
    Ok(Some(format!(
        "note: {} {verb} not used by `{name}` ({why})",
        and_list(&all)
    )))
}

/// A password option of the other kind, where the command asks for a password anyway (the new
/// vault's): ignoring it would let that password differ from the one in the file, so it is
/// refused. What the command takes instead.
fn other_kind(command: &str, group: &Group) -> Option<&'static str> {
    match (command, group.options[0]) {
        ("recover", "--password-file") => {
            Some("`recover` takes it with --new-password-file or --new-password-fd")
        }
        ("init", "--new-password-file") => {
            Some("`init` takes it with --password-file or --password-fd")
        }
        _ => None,
    }
}

/// The usage error for a password, new-password or saving option given after the name of a
/// command that does not take it (clap's bare "unexpected argument"), naming the commands
/// that do take it. None for any other error, which clap reports itself.
pub fn misplaced(err: &clap::Error, args: &[OsString]) -> Option<Error> {
    use clap::CommandFactory;
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if err.kind() != ErrorKind::UnknownArgument {
        return None;
    }
    let Some(ContextValue::String(arg)) = err.get(ContextKind::InvalidArg) else {
        return None;
    };
    let option = arg.split('=').next().unwrap_or(arg);
    let group = [&PASSWORD, &NEW_PASSWORD, &WRITER]
        .into_iter()
        .find(|g| g.options.contains(&option))?;
    let option = group.options.iter().find(|o| **o == option)?;
    // The command it was given to: the subcommands named before it (an earlier copy of the
    // option, before any command name, is one clap accepted).
    let path = args.iter().enumerate().skip(1).find_map(|(i, a)| {
        let a = a.to_str()?;
        let here = a == *option || a.strip_prefix(*option)?.starts_with('=');
        if !here {
            return None;
        }
        let path = command_path(&args[..i]);
        (!path.is_empty()).then_some(path)
    })?;
    if let Some(instead) = other_kind(&path, group) {
        return Some(Error::usage(
            format!("`{path}` does not take {option}: the password it asks for is the new vault's"),
            instead,
        ));
    }
    let users = commands_taking(&Cli::command(), option);
    let value = if option.ends_with("-file") {
        " PATH"
    } else if option.ends_with("-fd") {
        " N"
    } else if *option == "--lock-timeout" {
        " SECONDS"
    } else {
        ""
    };
    Some(Error::usage(
        format!("`{path}` does not take {option}"),
        format!(
            "{option} is for {users}; before the command name every command accepts it, and \
             one that does not use it says so: `nexusq {option}{value} {path}`"
        ),
    ))
}

/// The subcommands `args` name, as clap reads them ("contacts list"); empty if none.
fn command_path(args: &[OsString]) -> String {
    use clap::CommandFactory;
    // Errors are ignored: only the subcommands matter, not a missing argument.
    let Ok(matches) = Cli::command()
        .ignore_errors(true)
        .try_get_matches_from(args)
    else {
        return String::new();
    };
    let mut path = Vec::new();
    let mut m = &matches;
    while let Some((name, sub)) = m.subcommand() {
        path.push(name.to_string());
        m = sub;
    }
    path.join(" ")
}

/// The commands that take `option`, in the order of `nexusq --help`, those of one parent
/// together: "init, vault unlock/passwd, identity revoke/export, … and agent start".
fn commands_taking(root: &clap::Command, option: &str) -> String {
    fn walk(c: &clap::Command, prefix: &str, option: &str, out: &mut Vec<(String, String)>) {
        for sub in c.get_subcommands() {
            if sub.is_hide_set() || sub.get_name() == "help" {
                continue;
            }
            if sub
                .get_arguments()
                .any(|a| a.get_long().is_some_and(|l| format!("--{l}") == option))
            {
                out.push((prefix.to_string(), sub.get_name().to_string()));
            }
            let deeper = if prefix.is_empty() {
                sub.get_name().to_string()
            } else {
                format!("{prefix} {}", sub.get_name())
            };
            walk(sub, &deeper, option, out);
        }
    }
    let mut found = Vec::new();
    walk(root, "", option, &mut found);
    let mut parts: Vec<String> = Vec::new();
    let mut last_parent: Option<String> = None;
    for (parent, name) in found {
        match (&last_parent, parts.last_mut()) {
            (Some(p), Some(part)) if *p == parent && !parent.is_empty() => {
                part.push('/');
                part.push_str(&name);
            }
            _ => {
                parts.push(if parent.is_empty() {
                    name
                } else {
                    format!("{parent} {name}")
                });
                last_parent = Some(parent);
            }
        }
    }
    and_list(&parts.iter().map(String::as_str).collect::<Vec<_>>())
}

/// The command as typed ("contacts list"), for messages.
pub(super) fn command_name(command: &Command) -> &'static str {
    match command {
        Command::Init(_) => "init",
        Command::Vault(VaultCommand::Open) => "vault open",
        Command::Vault(VaultCommand::Unlock { .. }) => "vault unlock",
        Command::Vault(VaultCommand::Passwd { .. }) => "vault passwd",
        Command::Identity(IdentityCommand::History) => "identity history",
        Command::Identity(IdentityCommand::Revoke { .. }) => "identity revoke",
        Command::Identity(IdentityCommand::Show { .. }) => "identity show",
        Command::Identity(IdentityCommand::Export { .. }) => "identity export",
        Command::Rotate(_) => "rotate",
        Command::Sign(_) => "sign",
        Command::Verify(_) => "verify",
        Command::Encapsulate(_) => "encapsulate",
        Command::Decapsulate(_) => "decapsulate",
        Command::Encrypt(_) => "encrypt",
        Command::Decrypt(_) => "decrypt",
        Command::Bench(_) => "bench",
        Command::Report(_) => "report",
        Command::Backup(BackupCommand::Phrase { .. }) => "backup phrase",
        Command::Backup(BackupCommand::Shares { .. }) => "backup shares",
        Command::Backup(BackupCommand::Check { .. }) => "backup check",
        Command::Backup(BackupCommand::Kit { .. }) => "backup kit",
        Command::Recover(_) => "recover",
        Command::Contacts(c) => match c {
            ContactsCommand::Add { .. } => "contacts add",
            ContactsCommand::Verify { .. } => "contacts verify",
            ContactsCommand::List { .. } => "contacts list",
            ContactsCommand::Show { .. } => "contacts show",
            ContactsCommand::Remove { .. } => "contacts remove",
            ContactsCommand::Export { .. } => "contacts export",
            ContactsCommand::Recover { .. } => "contacts recover",
            ContactsCommand::Update { .. } => "contacts update",
        },
        Command::Doctor(_) => "doctor",
        Command::Agent(AgentCommand::Start(_)) => "agent start",
        Command::Agent(AgentCommand::Status) => "agent status",
        Command::Agent(AgentCommand::Stop) => "agent stop",
        Command::Agent(AgentCommand::Serve(_)) => "agent serve",
        Command::Lock => "lock",
        Command::Manpage => "manpage",
        Command::Completions { .. } => "completions",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{CommandFactory, Parser};

    fn os(args: &[&str]) -> Vec<OsString> {
        std::iter::once("nexusq")
            .chain(args.iter().copied())
            .map(OsString::from)
            .collect()
    }

    fn misplaced_error(args: &[&str]) -> Option<Error> {
        let args = os(args);
        let err = Cli::try_parse_from(&args).expect_err("clap refuses it");
        misplaced(&err, &args)
    }

    #[test]
    fn every_group_option_is_an_early_option_and_command_names_are_clap_s() {
        let root = Cli::command();
        for g in [&PASSWORD, &NEW_PASSWORD, &WRITER] {
            for o in g.options {
                assert!(
                    root.get_arguments()
                        .any(|a| a.get_long().is_some_and(|l| format!("--{l}") == *o)),
                    "{o}"
                );
            }
        }
        for args in [
            &["contacts", "list"][..],
            &["vault", "passwd"],
            &["backup", "check"],
            &["agent", "status"],
            &["identity", "history"],
            &["doctor"],
        ] {
            let cli = Cli::try_parse_from(os(args)).unwrap();
            assert_eq!(command_name(&cli.command), args.join(" "));
            assert_eq!(command_path(&os(args)), args.join(" "));
        }
    }

    #[test]
    fn the_commands_that_take_an_option_are_listed_by_parent() {
        let root = Cli::command();
        let password = commands_taking(&root, "--password-file");
        assert!(
            password.starts_with("init, vault unlock/passwd, identity revoke/export, rotate, sign"),
            "{password}"
        );
        assert!(
            password.ends_with("contacts add/verify/remove/recover/update and agent start"),
            "{password}"
        );
        assert!(
            !password.contains("serve") && !password.contains("list"),
            "{password}"
        );
        assert_eq!(
            commands_taking(&root, "--new-password-fd"),
            "vault passwd and recover"
        );
    }

    #[test]
    fn an_option_after_a_command_that_does_not_take_it_names_those_that_do() {
        for (args, option, path) in [
            (
                &["contacts", "list", "--password-file", "pw"][..],
                "--password-file",
                "contacts list",
            ),
            (
                &["--password-file", "a", "encrypt", "--password-fd=3"],
                "--password-fd",
                "encrypt",
            ),
            (
                &["vault", "--lock-timeout", "3", "open"],
                "--lock-timeout",
                "vault",
            ),
            (
                &["sign", "--new-password-file", "n"],
                "--new-password-file",
                "sign",
            ),
        ] {
            let e = misplaced_error(args).unwrap_or_else(|| panic!("{args:?}"));
            assert_eq!(e.exit(), crate::cli::error::Exit::Usage);
            assert_eq!(
                e.message(),
                format!("`{path}` does not take {option}"),
                "{args:?}"
            );
            assert!(e.hint().contains("before the command name"), "{}", e.hint());
            assert!(
                e.hint().contains(&format!("`nexusq {option}")),
                "{}",
                e.hint()
            );
        }
        let e = misplaced_error(&["doctor", "--allow-shared-storage"]).unwrap();
        assert!(e.hint().contains("contacts add/verify"), "{}", e.hint());
        // After `recover`, a password of the other kind: what it takes instead.
        let e = misplaced_error(&["recover", "--password-file", "pw"]).unwrap();
        assert!(e.message().contains("new vault's"), "{}", e.message());
        assert!(e.hint().contains("--new-password-file"), "{}", e.hint());
        // Anything else is clap's to report.
        assert!(misplaced_error(&["contacts", "list", "--bogus"]).is_none());
        assert!(misplaced_error(&["contacts", "list", "extra"]).is_none());
    }

    fn note(args: &[&str], takes: Takes) -> Result<Option<String>, Error> {
        let cli = Cli::try_parse_from(os(args)).unwrap();
        unused(&cli.early, &cli.command, takes)
    }

    #[test]
    fn one_note_names_every_unused_option_and_who_uses_it() {
        let none = Takes::default();
        assert_eq!(note(&["doctor"], none).unwrap(), None);
        assert_eq!(
            note(&["--password-file", "pw", "contacts", "list"], none)
                .unwrap()
                .unwrap(),
            "note: --password-file is not used by `contacts list` (it is for the commands that \
             unlock the vault)"
        );
        assert_eq!(
            note(
                &["--lock-timeout", "3", "--allow-shared-storage", "sign"],
                none
            )
            .unwrap()
            .unwrap(),
            "note: --lock-timeout and --allow-shared-storage are not used by `sign` (they are \
             for the commands that change the vault or the contacts book)"
        );
        assert_eq!(
            note(
                &["--password-fd", "3", "--new-password-file", "n", "bench"],
                none
            )
            .unwrap()
            .unwrap(),
            "note: --password-fd and --new-password-file are not used by `bench` \
             (--password-fd is for the commands that unlock the vault; --new-password-file is \
             for `vault passwd` and `recover`)"
        );
        let used = Takes {
            password: true,
            writer: true,
            ..Takes::default()
        };
        assert_eq!(
            note(
                &["--password-file", "pw", "--lock-timeout", "3", "rotate"],
                used
            )
            .unwrap(),
            None
        );
    }

    #[test]
    fn a_password_of_the_other_kind_is_refused_where_a_password_is_asked_anyway() {
        let recover = Takes {
            new_password: true,
            writer: true,
            ..Takes::default()
        };
        let e = note(&["--password-file", "pw", "recover"], recover).unwrap_err();
        assert_eq!(e.exit(), crate::cli::error::Exit::Usage);
        assert!(
            e.message()
                .contains("`recover` does not read --password-file"),
            "{}",
            e.message()
        );
        assert!(e.hint().contains("--new-password-file"), "{}", e.hint());
        let init = Takes {
            password: true,
            writer: true,
            ..Takes::default()
        };
        // A password on stdin that the command does not read: it could be read as its data.
        for args in [
            &["--password-fd", "0", "encrypt", "--to", "x"][..],
            &["--new-password-file", "-", "verify"],
        ] {
            let e = note(args, Takes::default()).unwrap_err();
            assert!(e.message().contains("on stdin"), "{}", e.message());
        }
        let e = note(&["--new-password-fd", "4", "init"], init).unwrap_err();
        assert!(
            e.message()
                .contains("`init` does not read --new-password-fd"),
            "{}",
            e.message()
        );
        assert!(e.hint().contains("--password-file"), "{}", e.hint());
    }
}
