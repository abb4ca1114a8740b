//! `nexusq completions SHELL`: clap_complete's static script, and for bash, zsh and fish a
//! small function that offers contact names where a contact may be named (docs/cli.md,
//! "Shell completion").
//!
//! Why not clap_complete's dynamic completion (`CompleteEnv`): it is behind an unstable
//! feature and changes how completions are installed (the shell asks `nexusq` about every
//! word). Here the script stays one static file, and only the words where a name fits run
//! `nexusq contacts list --names` (no password, errors discarded). The function reads the
//! words before the cursor as nexusq's parser would (which options take a value, from the
//! clap definitions), answers where [`SLOTS`] says a name fits, and hands every other word to
//! clap_complete's own function; for bash and zsh that function is renamed `_nexusq_clap`,
//! for fish the additions are more `complete` lines. The output is deterministic: the same
//! definitions give the same script.

use clap_complete::Shell;
use std::collections::BTreeSet;

/// Where a contact name may be typed.
#[derive(Clone, Copy, Debug)]
enum At {
    /// The value of this long option.
    Option(&'static str),
    /// The first positional argument.
    FirstPositional,
    /// Every positional argument.
    EveryPositional,
}

/// One place where a contact name may be typed: the command, the argument, and whether a file
/// may be given there too (the values `cli::recipients::resolve` reads).
#[derive(Clone, Copy, Debug)]
struct Slot {
    path: &'static [&'static str],
    at: At,
    files: bool,
}

const fn slot(path: &'static [&'static str], at: At, files: bool) -> Slot {
    Slot { path, at, files }
}

/// Every place a contact name may be typed. `contacts add NAME` is not one: it takes a new name.
const SLOTS: &[Slot] = &[
    slot(&["encrypt"], At::Option("to"), true),
    slot(&["encapsulate"], At::Option("to"), true),
    slot(&["verify"], At::Option("identity"), true),
    slot(&["identity", "show"], At::FirstPositional, true),
    slot(&["contacts", "show"], At::FirstPositional, false),
    slot(&["contacts", "verify"], At::FirstPositional, false),
    slot(&["contacts", "remove"], At::FirstPositional, false),
    slot(&["contacts", "update"], At::FirstPositional, false),
    slot(&["contacts", "export"], At::EveryPositional, false),
];

/// The completion script for `shell`, generated from `cmd` (the program's definitions).
pub fn script(shell: Shell, mut cmd: clap::Command) -> Vec<u8> {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut cmd, "nexusq", &mut out);
    let generated = String::from_utf8(out).expect("clap_complete writes UTF-8");
    let value_options = value_options(&cmd);
    let with_names = match shell {
        Shell::Bash => bash(&generated, &value_options),
        Shell::Zsh => zsh(&generated, &value_options),
        Shell::Fish => Some(fish(&generated, &value_options)),
        _ => None,
    };
    // Should a later clap_complete change what the renaming looks for, the script still
    // completes everything but names (a test fails first).
    with_names.unwrap_or(generated).into_bytes()
}

/// The options that take a value (`--vault`, `-o`), of the program and of every command that
/// has a slot, sorted: the words after them are their values, not commands or positionals.
fn value_options(root: &clap::Command) -> Vec<String> {
    let mut commands = vec![root];
    for s in SLOTS {
        let mut c = root;
        for name in s.path {
            c = c
                .find_subcommand(name)
                .unwrap_or_else(|| panic!("no command {:?}", s.path));
            commands.push(c);
        }
    }
    let mut set = BTreeSet::new();
    for c in commands {
        for a in c.get_arguments() {
            if a.is_positional() || !a.get_action().takes_values() {
                continue;
            }
            if let Some(long) = a.get_long() {
                set.insert(format!("--{long}"));
            }
            if let Some(short) = a.get_short() {
                set.insert(format!("-{short}"));
            }
        }
    }
    set.into_iter().collect()
}

/// The shell patterns (bash and zsh `case`, fish `switch`) of the slots with or without
/// files, matched against "OPTION|POSITIONALS": the option whose value is being completed
/// (empty for a positional) and the positional words before the cursor, space-separated.
fn patterns(files: bool) -> Vec<String> {
    let mut out = Vec::new();
    for s in SLOTS.iter().filter(|s| s.files == files) {
        let path = s.path.join(" ");
        match s.at {
            At::Option(long) => {
                out.push(format!("\"--{long}|{path}\""));
                out.push(format!("\"--{long}|{path} \"*"));
            }
            At::FirstPositional => out.push(format!("\"|{path}\"")),
            At::EveryPositional => {
                out.push(format!("\"|{path}\""));
                out.push(format!("\"|{path} \"*"));
            }
        }
    }
    out
}

/// The long options of the option slots (`--to`, `--identity`), once each, in order.
fn slot_options() -> Vec<&'static str> {
    let mut out: Vec<&str> = Vec::new();
    for s in SLOTS {
        if let At::Option(long) = s.at
            && !out.contains(&long)
        {
            out.push(long);
        }
    }
    out
}

/// Replace the one `from` in `text`; None unless there is exactly one.
fn replace_once(text: &str, from: &str, to: &str) -> Option<String> {
    (text.matches(from).count() == 1).then(|| text.replacen(from, to, 1))
}

const HEADER: &str = "\
# Contact names, added to clap_complete's script by `nexusq completions` (docs/cli.md, \"Shell
# completion\"): where a contact may be named (--to, --identity, `identity show`, the NAME of
# `contacts show/verify/remove/update/export`), the names `nexusq contacts list --names`
# prints (no password; an error means no names), and files too where a file may be given.
# --vault and --contacts given earlier on the line are passed on. Every other word is
# clap_complete's.
";

fn bash(generated: &str, value_options: &[String]) -> Option<String> {
    // clap_complete's function opens the script.
    let renamed = format!(
        "_nexusq_clap() {{\n{}",
        generated.strip_prefix("_nexusq() {\n")?
    );
    let function = BASH
        .replace("@VALUE_OPTIONS@", &value_options.join(" | "))
        .replace("@NAMES_OR_FILES@", &patterns(true).join(" | "))
        .replace("@NAMES@", &patterns(false).join(" | "));
    Some(format!("{renamed}\n{HEADER}{function}"))
}

const BASH: &str = r#"_nexusq() {
    local IFS=$' \t\n' line word kind="" opt="" prefix="" at="" value=0 i strip
    local -a words=() pos=() book=() names=() found=()
    # COMP_WORDS is also split at '=', '@' and ':' (COMP_WORDBREAKS): join the pieces no blank
    # separates in COMP_LINE, so `--to=@alice` and `bob@example.org` are one word each.
    if [[ -n ${COMP_LINE-} ]]; then
        line=${COMP_LINE:0:COMP_POINT}
        for ((i = 0; i <= COMP_CWORD; i++)); do
            word=${COMP_WORDS[i]}
            ((i == COMP_CWORD)) && word=${line#"${line%%[![:blank:]]*}"}
            if ((i == 0)) || [[ $line == [[:blank:]]* ]]; then
                words+=("$word")
            else
                words[${#words[@]} - 1]+=$word
            fi
            line=${line#"${line%%[![:blank:]]*}"}
            line=${line#"$word"}
        done
    else
        words=("${COMP_WORDS[@]:0:COMP_CWORD+1}")
    fi
    if ((${#words[@]} < 2)); then
        _nexusq_clap "$@"
        return
    fi
    local cur=${words[${#words[@]} - 1]}
    # The words before the cursor: options, their values, and the positionals.
    for word in "${words[@]:1:${#words[@]}-2}"; do
        if ((value)); then
            value=0
            if [[ $opt == --vault || $opt == --contacts ]]; then
                word=${word#[\"\']} word=${word%[\"\']}
                [[ $word == "~/"* ]] && word=$HOME/${word:2}
                book+=("$opt" "$word")
            fi
            continue
        fi
        case $word in
            --vault=* | --contacts=*)
                opt=${word%%=*} word=${word#*=}
                word=${word#[\"\']} word=${word%[\"\']}
                [[ $word == "~/"* ]] && word=$HOME/${word:2}
                book+=("$opt" "$word")
                ;;
            @VALUE_OPTIONS@) opt=$word value=1 ;;
            -*) ;;
            *) pos+=("$word") ;;
        esac
    done
    if ((value)); then
        :
    elif [[ $cur == --*=* ]]; then
        opt=${cur%%=*} prefix=${cur%%=*}= cur=${cur#*=}
    elif [[ $cur == -* ]]; then
        _nexusq_clap "$@"
        return
    else
        opt=""
    fi
    case "$opt|${pos[*]}" in
        @NAMES_OR_FILES@) kind=names-or-files ;;
        @NAMES@) kind=names ;;
        *)
            _nexusq_clap "$@"
            return
            ;;
    esac
    # `@NAME` is always the contact, never a file.
    if [[ $kind == names-or-files && $cur == @* ]]; then
        at=@ cur=${cur:1} kind=names
    fi
    mapfile -t names < <(command nexusq "${book[@]}" contacts list --names 2>/dev/null)
    for word in "${names[@]}"; do
        [[ $word == "$cur"* ]] && found+=("$prefix$at$word")
    done
    if [[ $kind == names-or-files ]]; then
        while IFS= read -r word; do
            found+=("$prefix$word")
        done < <(compgen -f -- "$cur")
        compopt -o filenames 2>/dev/null
    elif ((${#found[@]} == 0)); then
        _nexusq_clap "$@"
        return
    fi
    # Readline replaces only the end of the word after its last '=' or '@' ($2).
    strip=$((${#prefix} + ${#at} + ${#cur} - ${#2}))
    ((strip < 0)) && strip=0
    COMPREPLY=()
    for word in "${found[@]}"; do
        COMPREPLY+=("${word:strip}")
    done
    return 0
}
"#;

fn zsh(generated: &str, value_options: &[String]) -> Option<String> {
    const DISPATCH: &str = "\nif [ \"$funcstack[1]\" = \"_nexusq\" ]; then\n";
    let renamed = replace_once(generated, "\n_nexusq() {\n", "\n_nexusq_clap() {\n")?;
    let function = ZSH
        .replace("@VALUE_OPTIONS@", &value_options.join("|"))
        .replace("@NAMES_OR_FILES@", &patterns(true).join("|"))
        .replace("@NAMES@", &patterns(false).join("|"));
    // Defined before the lines that run or register `_nexusq`.
    replace_once(
        &renamed,
        DISPATCH,
        &format!("\n{HEADER}{function}{DISPATCH}"),
    )
}

const ZSH: &str = r#"_nexusq() {
    local word opt="" kind="" cur=${words[CURRENT]} expl ret=1
    local -a pos book names
    local -i value=0
    # The words before the cursor: options, their values, and the positionals.
    for word in "${(@)words[2,CURRENT-1]}"; do
        if (( value )); then
            value=0
            if [[ $opt == --vault || $opt == --contacts ]]; then
                book+=("$opt" "${${(Q)word}/#\~\//$HOME/}")
            fi
            continue
        fi
        case $word in
            (--vault=*|--contacts=*) book+=("${word%%=*}" "${${(Q)word#*=}/#\~\//$HOME/}") ;;
            (@VALUE_OPTIONS@) opt=$word; value=1 ;;
            (-*) ;;
            (*) pos+=("${(Q)word}") ;;
        esac
    done
    if (( value )); then
        :
    elif [[ $cur == --*=* ]]; then
        opt=${cur%%=*}
    elif [[ $cur == -* ]]; then
        _nexusq_clap "$@"
        return
    else
        opt=""
    fi
    case "$opt|${pos[*]}" in
        (@NAMES_OR_FILES@) kind=names-or-files ;;
        (@NAMES@) kind=names ;;
        (*)
            _nexusq_clap "$@"
            return
            ;;
    esac
    names=(${(f)"$(command nexusq "${book[@]}" contacts list --names 2>/dev/null)"})
    if [[ $kind == names ]] && (( ! $#names )); then
        _nexusq_clap "$@"
        return
    fi
    [[ $cur == --*=* ]] && compset -P '*='
    # `@NAME` is always the contact, never a file.
    [[ $kind == names-or-files ]] && compset -P '@' && kind=names
    (( $#names )) && _wanted contacts expl 'contact' compadd -a names && ret=0
    [[ $kind == names-or-files ]] && _files && ret=0
    return ret
}

"#;

fn fish(generated: &str, value_options: &[String]) -> String {
    let quoted: Vec<String> = value_options.iter().map(|o| format!("'{o}'")).collect();
    let longs: Vec<String> = slot_options().iter().map(|o| format!("-l {o}")).collect();
    let function = FISH
        .replace("@VALUE_OPTIONS@", &quoted.join(" "))
        .replace("@NAMES_OR_FILES@", &fish_patterns(true))
        .replace("@NAMES@", &fish_patterns(false))
        .replace("@SLOT_OPTIONS@", &longs.join(" "));
    format!("{generated}\n{HEADER}{function}")
}

/// [`patterns`] in fish's quoting: `'--to|encrypt' '--to|encrypt *'`.
fn fish_patterns(files: bool) -> String {
    patterns(files)
        .iter()
        .map(|p| {
            let star = p.ends_with('*');
            let inner = p.trim_end_matches('*').trim_matches('"');
            format!("'{inner}{}'", if star { "*" } else { "" })
        })
        .collect::<Vec<_>>()
        .join(" ")
}

const FISH: &str = r#"function __nexusq_contact_slot --argument-names want
    # Is the word being completed where a contact may be named (`names`), or a contact or a
    # file (`names-or-files`)? The words before it: options, their values, the positionals.
    set -l words (commandline -opc)
    set -e words[1]
    set -l pos
    set -l opt
    set -l value 0
    for word in $words
        if test $value = 1
            set value 0
            continue
        end
        switch $word
            case @VALUE_OPTIONS@
                set opt $word
                set value 1
            case '-*'
            case '*'
                set -a pos $word
        end
    end
    set -l cur (commandline -ct)
    if test $value = 0
        if string match -q -- '--*=*' $cur
            set opt (string split -m 1 = -- $cur)[1]
        else if string match -q -- '-*' $cur
            return 1
        else
            set opt ''
        end
    end
    set -l kind
    switch "$opt|$pos"
        case @NAMES_OR_FILES@
            set kind names-or-files
        case @NAMES@
            set kind names
    end
    test "$kind" = "$want"
end

function __nexusq_contact_names --argument-names at
    # The book's names (`@NAME` after an @ where a file may be given too); passes on --vault
    # and --contacts given earlier on the line.
    command -q nexusq; or return
    set -l words (commandline -opc)
    set -e words[1]
    set -l book
    set -l next
    for word in $words
        if set -q next[1]
            set -a book $next (string replace -r '^~/' "$HOME/" -- $word)
            set next
            continue
        end
        switch $word
            case --vault --contacts
                set next $word
            case '--vault=*' '--contacts=*'
                set -l parts (string split -m 1 = -- $word)
                set -a book $parts[1] (string replace -r '^~/' "$HOME/" -- $parts[2])
        end
    end
    set -l cur (commandline -ct)
    string match -q -- '--*=*' $cur; and set cur (string split -m 1 = -- $cur)[2]
    set -l prefix
    test "$at" = @; and string match -q -- '@*' $cur; and set prefix @
    for name in (command nexusq $book contacts list --names 2>/dev/null)
        printf '%s%s\tcontact\n' $prefix $name
    end
end

complete -c nexusq -n '__nexusq_contact_slot names' -f -a '(__nexusq_contact_names)'
complete -c nexusq -n '__nexusq_contact_slot names-or-files' -a '(__nexusq_contact_names @)'
complete -c nexusq -n '__nexusq_contact_slot names-or-files' @SLOT_OPTIONS@ -r -a '(__nexusq_contact_names @)'
"#;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::args::Cli;
    use clap::CommandFactory;

    fn text(shell: Shell) -> String {
        String::from_utf8(script(shell, Cli::command())).unwrap()
    }

    #[test]
    fn every_slot_names_a_real_argument() {
        let root = Cli::command();
        for s in SLOTS {
            let mut c = &root;
            for name in s.path {
                c = c.find_subcommand(name).expect("a command");
            }
            let positionals: Vec<&clap::Arg> = c.get_positionals().collect();
            match s.at {
                At::Option(long) => assert!(
                    c.get_arguments().any(|a| a.get_long() == Some(long)),
                    "{:?} has no --{long}",
                    s.path
                ),
                At::FirstPositional => {
                    assert!(!positionals.is_empty(), "{:?}", s.path);
                }
                At::EveryPositional => assert!(
                    positionals.len() == 1
                        && positionals[0].get_action().takes_values()
                        && matches!(positionals[0].get_action(), clap::ArgAction::Append),
                    "{:?}: one repeated positional",
                    s.path
                ),
            }
        }
    }

    #[test]
    fn an_option_takes_a_value_everywhere_or_nowhere() {
        // The function reads the words before the cursor with one list of options that take
        // a value: among the commands with a slot, no option may be a flag in one and take a
        // value in another.
        let root = Cli::command();
        let values = value_options(&root);
        let mut commands = vec![&root];
        for s in SLOTS {
            let mut c = &root;
            for name in s.path {
                c = c.find_subcommand(name).unwrap();
                commands.push(c);
            }
        }
        for c in commands {
            for a in c.get_arguments().filter(|a| !a.is_positional()) {
                if !a.get_action().takes_values() {
                    let long = a.get_long().map(|l| format!("--{l}"));
                    assert!(
                        long.is_none_or(|l| !values.contains(&l)),
                        "{:?} is a flag of {}",
                        a.get_long(),
                        c.get_name()
                    );
                }
            }
        }
        for o in ["--vault", "--contacts", "--to", "-o", "--password-file"] {
            assert!(values.iter().any(|v| v == o), "{o}: {values:?}");
        }
        assert!(!values.iter().any(|v| v == "--json"));
    }

    #[test]
    fn bash_zsh_and_fish_get_the_names_and_keep_clap_s_completions() {
        let bash = text(Shell::Bash);
        assert!(bash.starts_with("_nexusq_clap() {\n"), "{}", &bash[..40]);
        assert_eq!(bash.matches("\n_nexusq() {\n").count(), 1);
        assert!(bash.contains("complete -F _nexusq "));
        let zsh = text(Shell::Zsh);
        assert!(zsh.starts_with("#compdef nexusq\n"));
        let (function, dispatch) = zsh.split_once("\n_nexusq() {\n").expect("the function");
        assert!(function.contains("\n_nexusq_clap() {\n"));
        assert!(dispatch.contains("compdef _nexusq nexusq"));
        let fish = text(Shell::Fish);
        assert!(fish.contains("function __nexusq_contact_slot"));
        for script in [&bash, &zsh, &fish] {
            assert!(script.contains("contacts list --names 2>/dev/null"));
            assert!(script.contains("|contacts show"));
            assert!(script.contains("--to|encrypt"));
            for placeholder in [
                "@VALUE_OPTIONS@",
                "@NAMES@",
                "@NAMES_OR_FILES@",
                "@SLOT_OPTIONS@",
            ] {
                assert!(!script.contains(placeholder), "{placeholder}");
            }
        }
        // The same definitions, the same script.
        assert_eq!(bash, text(Shell::Bash));
        // Other shells: clap_complete's script as it is.
        let mut plain = Vec::new();
        clap_complete::generate(Shell::Elvish, &mut Cli::command(), "nexusq", &mut plain);
        assert_eq!(script(Shell::Elvish, Cli::command()), plain);
    }
}
