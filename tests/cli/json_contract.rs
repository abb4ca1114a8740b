//! The command-line contract (docs/cli.md) as one table: every command runs once to success
//! and once to a failure, as text and with --json. JSON output is validated against the
//! command's schema in docs/schemas/, every --json error against error.schema.json, and every
//! failure has its exit code, an "error:" line and a "hint:" line. Adding a command is one row.

use assert_cmd::Command;
use serde_json::Value;
use std::path::Path;

/// One command: its name, the arguments of a success, the schema of its --json output (None:
/// it prints no JSON), the arguments of a failure and that failure's exit code. `{d}` is the
/// test folder, `{r}` the repository; the vault is `--vault {d}/v.nxq` unless the arguments name another.
struct Row {
    name: &'static str,
    ok: &'static [&'static str],
    schema: Option<&'static str>,
    fail: &'static [&'static str],
    code: i32,
}

const fn row(
    name: &'static str,
    ok: &'static [&'static str],
    schema: Option<&'static str>,
    fail: &'static [&'static str],
    code: i32,
) -> Row {
    Row {
        name,
        ok,
        schema,
        fail,
        code,
    }
}

const KDF: [&str; 4] = ["--kdf-memory-mib", "8", "--kdf-iterations", "1"];

/// In order: later rows use what earlier ones made (the vault, the export, signatures).
const TABLE: &[Row] = &[
    row(
        "init",
        &["init", "--password-file", "{d}/pw", "KDF"],
        Some("init"),
        &["init", "--password-file", "{d}/pw", "KDF"],
        2,
    ),
    row(
        "vault open",
        &["vault", "open"],
        Some("vault-open"),
        &["vault", "open", "--vault", "{d}/missing.nxq"],
        4,
    ),
    row(
        "vault unlock",
        &["vault", "unlock", "--password-file", "{d}/pw"],
        Some("vault-unlock"),
        &["vault", "unlock", "--password-file", "{d}/wrong"],
        3,
    ),
    row(
        "vault passwd",
        &[
            "vault",
            "passwd",
            "--password-file",
            "{d}/pw",
            "--new-password-file",
            "{d}/pw",
            "KDF",
        ],
        Some("vault-passwd"),
        &[
            "vault",
            "passwd",
            "--password-file",
            "{d}/wrong",
            "--new-password-file",
            "{d}/pw",
        ],
        3,
    ),
    row(
        "identity export",
        &["identity", "export", "-o", "{d}/me.asc"],
        Some("identity-export"),
        &["identity", "export", "--vault", "{d}/missing.nxq"],
        4,
    ),
    row(
        "identity show",
        &["identity", "show", "{d}/me.asc"],
        Some("identity-show"),
        &["identity", "show", "{d}/folder"],
        2,
    ),
    row(
        "identity history",
        &["identity", "history"],
        Some("identity-history"),
        &["identity", "history", "--vault", "{d}/missing.nxq"],
        4,
    ),
    row(
        "sign",
        &[
            "sign",
            "{d}/data",
            "--password-file",
            "{d}/pw",
            "-o",
            "{d}/data.sig",
        ],
        Some("sign"),
        &["sign", "{d}/missing", "--password-file", "{d}/pw"],
        5,
    ),
    row(
        "verify",
        &["verify", "{d}/data", "--sig", "{d}/data.sig"],
        Some("verify"),
        &["verify", "{d}/data", "--sig", "{d}/empty"],
        1,
    ),
    row(
        "identity export --openpgp",
        &[
            "identity",
            "export",
            "--openpgp",
            "--user-id",
            "Me <me@example.org>",
            "--password-file",
            "{d}/pw",
            "-o",
            "{d}/me.pgp.asc",
        ],
        Some("identity-export-openpgp"),
        &[
            "identity",
            "export",
            "--openpgp",
            "--password-file",
            "{d}/wrong",
            "-o",
            "{d}/me2.pgp.asc",
        ],
        3,
    ),
    row(
        "identity show (OpenPGP)",
        &["identity", "show", "{d}/me.pgp.asc"],
        Some("identity-show-openpgp"),
        &["identity", "show", "{d}/me.asc.missing"],
        5,
    ),
    row(
        "sign --openpgp",
        &[
            "sign",
            "--openpgp",
            "{d}/data",
            "--password-file",
            "{d}/pw",
            "-o",
            "{d}/data.pgp.sig",
        ],
        Some("sign-openpgp"),
        &[
            "sign",
            "--openpgp",
            "{d}/missing",
            "--password-file",
            "{d}/pw",
        ],
        5,
    ),
    row(
        "verify (OpenPGP)",
        &[
            "verify",
            "{d}/data",
            "--sig",
            "{d}/data.pgp.sig",
            "--identity",
            "{d}/me.pgp.asc",
        ],
        Some("verify-openpgp"),
        &[
            "verify",
            "{d}/empty",
            "--sig",
            "{d}/data.pgp.sig",
            "--identity",
            "{d}/me.pgp.asc",
        ],
        1,
    ),
    row(
        "encrypt (OpenPGP)",
        &[
            "encrypt",
            "{d}/data",
            "--to",
            "{d}/me.pgp.asc",
            "-o",
            "{d}/data.pgp",
        ],
        Some("encrypt-openpgp"),
        &[
            "encrypt",
            "{d}/data",
            "--to",
            "{d}/me.pgp.asc",
            "--to",
            "{d}/me.asc",
            "-o",
            "{d}/x.pgp",
        ],
        2,
    ),
    row(
        "decrypt (OpenPGP)",
        &[
            "decrypt",
            "{d}/data.pgp",
            "--password-file",
            "{d}/pw",
            "-o",
            "{d}/out.pgp",
        ],
        Some("decrypt-openpgp"),
        &[
            "decrypt",
            "{d}/data.pgp.sig",
            "--password-file",
            "{d}/pw",
            "-o",
            "{d}/out2.pgp",
        ],
        1,
    ),
    row(
        "encapsulate",
        &["encapsulate", "--to", "{d}/me.asc", "-o", "{d}/env"],
        Some("encapsulate"),
        &["encapsulate", "--to", "{d}/data", "-o", "{d}/env2"],
        1,
    ),
    row(
        "decapsulate",
        &["decapsulate", "{d}/env", "--password-file", "{d}/pw"],
        Some("decapsulate"),
        &["decapsulate", "{d}/empty", "--password-file", "{d}/pw"],
        1,
    ),
    row(
        "encrypt",
        &[
            "encrypt",
            "{d}/data",
            "--to",
            "{d}/me.asc",
            "--to-self",
            "-o",
            "{d}/data.nxq",
        ],
        Some("encrypt"),
        &[
            "encrypt",
            "{d}/data",
            "--to",
            "{d}/folder",
            "-o",
            "{d}/x.nxq",
        ],
        2,
    ),
    row(
        "decrypt",
        &[
            "decrypt",
            "{d}/data.nxq",
            "--password-file",
            "{d}/pw",
            "-o",
            "{d}/out",
        ],
        Some("decrypt"),
        &[
            "decrypt",
            "{d}/data",
            "--password-file",
            "{d}/pw",
            "-o",
            "{d}/out2",
        ],
        1,
    ),
    row(
        "sign --compact",
        &[
            "sign",
            "{d}/data",
            "--compact",
            "--password-file",
            "{d}/pw",
            "-o",
            "{d}/data.csig",
        ],
        Some("sign"),
        &[
            "sign",
            "{d}/folder",
            "--compact",
            "--password-file",
            "{d}/pw",
        ],
        2,
    ),
    row(
        "sign FILE...",
        &[
            "sign",
            "{d}/data",
            "{d}/empty",
            "--output-dir",
            "{d}/folder",
            "--password-file",
            "{d}/pw",
        ],
        Some("sign-many"),
        &[
            "sign",
            "{d}/data",
            "{d}/missing",
            "--output-dir",
            "{d}/folder",
            "--password-file",
            "{d}/pw",
        ],
        5,
    ),
    row(
        "verify FILE...",
        &["verify", "{d}/data", "{d}/empty", "--sig-dir", "{d}/folder"],
        Some("verify-many"),
        &[
            "verify",
            "{d}/data",
            "{d}/missing",
            "--sig-dir",
            "{d}/folder",
        ],
        // A data file that is not there is a missing input (docs/cli.md, "Inputs").
        5,
    ),
    row(
        "sign --manifest",
        &[
            "sign",
            "--manifest",
            "{d}/SHA256SUMS",
            "--password-file",
            "{d}/pw",
        ],
        Some("sign-manifest"),
        &[
            "sign",
            "--manifest",
            "{d}/BADSUMS",
            "--password-file",
            "{d}/pw",
        ],
        1,
    ),
    row(
        "verify --manifest",
        &["verify", "--manifest", "{d}/SHA256SUMS"],
        Some("verify-manifest"),
        &[
            "verify",
            "--manifest",
            "{d}/BADSUMS",
            "--sig",
            "{d}/SHA256SUMS.sig",
        ],
        1,
    ),
    row(
        "contacts add",
        &[
            "contacts",
            "add",
            "bob",
            "{d}/bob.asc",
            "--yes",
            "--password-file",
            "{d}/pw",
        ],
        Some("contacts-add"),
        &[
            "contacts",
            "add",
            "carol",
            "{d}/folder",
            "--yes",
            "--password-file",
            "{d}/pw",
        ],
        2,
    ),
    row(
        "contacts verify",
        &[
            "contacts",
            "verify",
            "bob",
            "{bobfp}",
            "--password-file",
            "{d}/pw",
        ],
        Some("contacts-verify"),
        &[
            "contacts",
            "verify",
            "nobody",
            "{bobfp}",
            "--password-file",
            "{d}/pw",
        ],
        2,
    ),
    row(
        "contacts list",
        &["contacts", "list"],
        Some("contacts-list"),
        &["contacts", "list", "--contacts", "{d}/data"],
        4,
    ),
    row(
        "contacts list --names",
        &["contacts", "list", "--names"],
        Some("contacts-list-names"),
        &["contacts", "list", "--names", "--contacts", "{d}/data"],
        4,
    ),
    row(
        "contacts show",
        &["contacts", "show", "bob"],
        Some("contacts-show"),
        &["contacts", "show", "nobody"],
        2,
    ),
    row(
        "contacts export",
        &["contacts", "export", "bob"],
        Some("contacts-export"),
        &["contacts", "export", "nobody"],
        2,
    ),
    row(
        "contacts update",
        &[
            "contacts",
            "update",
            "bob",
            "{d}/bob.asc",
            "--password-file",
            "{d}/pw",
        ],
        Some("contacts-update"),
        &[
            "contacts",
            "update",
            "bob",
            "{d}/me.asc",
            "--password-file",
            "{d}/pw",
        ],
        1,
    ),
    row(
        "contacts recover",
        &["contacts", "recover", "--yes", "--password-file", "{d}/pw"],
        Some("contacts-recover"),
        &[
            "contacts",
            "recover",
            "--yes",
            "--contacts",
            "{d}/data",
            "--password-file",
            "{d}/pw",
        ],
        4,
    ),
    row(
        "contacts remove",
        &["contacts", "remove", "bob", "--password-file", "{d}/pw"],
        Some("contacts-remove"),
        &["contacts", "remove", "nobody", "--password-file", "{d}/pw"],
        2,
    ),
    row(
        "agent start",
        &[
            "agent",
            "start",
            "--idle",
            "30s",
            "--password-file",
            "{d}/pw",
        ],
        Some("agent-start"),
        &[
            "agent",
            "start",
            "--idle",
            "soon",
            "--password-file",
            "{d}/pw",
        ],
        2,
    ),
    row(
        "agent status",
        &["agent", "status"],
        Some("agent-status"),
        &["agent", "status", "--vault", "{d}/missing.nxq"],
        1,
    ),
    row(
        "agent stop",
        &["agent", "stop"],
        Some("agent-stop"),
        &["agent", "stop", "extra"],
        2,
    ),
    row("lock", &["lock"], Some("agent-stop"), &["lock", "extra"], 2),
    row(
        "rotate",
        &["rotate", "--password-file", "{d}/pw"],
        Some("rotate"),
        &["rotate", "--password-file", "{d}/wrong"],
        3,
    ),
    row(
        "backup phrase",
        &[
            "backup",
            "phrase",
            "-o",
            "{d}/phrase.txt",
            "--password-file",
            "{d}/pw",
        ],
        Some("backup-phrase"),
        &[
            "backup",
            "phrase",
            "-o",
            "{d}/phrase.txt",
            "--password-file",
            "{d}/pw",
        ],
        2,
    ),
    row(
        "backup shares",
        &[
            "backup",
            "shares",
            "--threshold",
            "2",
            "--shares",
            "3",
            "-o",
            "{d}/share",
            "--password-file",
            "{d}/pw",
        ],
        Some("backup-shares"),
        &[
            "backup",
            "shares",
            "--threshold",
            "1",
            "--shares",
            "3",
            "-o",
            "{d}/other-share",
            "--password-file",
            "{d}/pw",
        ],
        2,
    ),
    row(
        "backup check",
        &["backup", "check", "--phrase-file", "{d}/phrase.txt"],
        Some("backup-check"),
        &["backup", "check", "--share-file", "{d}/share.1"],
        1,
    ),
    row(
        "backup kit",
        &[
            "backup",
            "kit",
            "-o",
            "{d}/kit.html",
            "--share-file",
            "{d}/share.1",
            "--share-file",
            "{d}/share.3",
        ],
        Some("backup-kit"),
        &[
            "backup",
            "kit",
            "-o",
            "{d}/kit.html",
            "--phrase-file",
            "{d}/phrase.txt",
        ],
        2,
    ),
    row(
        "recover",
        &[
            "recover",
            "--vault",
            "{d}/recovered.nxq",
            "--phrase-file",
            "{d}/phrase.txt",
            "--from-export",
            "{d}/me.asc",
            "--new-password-file",
            "{d}/pw",
            "KDF",
        ],
        Some("recover"),
        &[
            "recover",
            "--vault",
            "{d}/refused.nxq",
            "--share-file",
            "{d}/share.2",
            "--new-password-file",
            "{d}/pw",
        ],
        1,
    ),
    // Before the revocation: doctor fails (exit 1) on a revoked identity.
    row(
        "doctor",
        &["doctor"],
        Some("doctor"),
        &["doctor", "--no-such-option"],
        2,
    ),
    row(
        "identity revoke",
        &[
            "identity",
            "revoke",
            "--yes",
            "{d}/v.nxq.revocation.asc",
            "--password-file",
            "{d}/pw",
            "-o",
            "{d}/revoked.asc",
        ],
        Some("identity-revoke"),
        &[
            "identity",
            "revoke",
            "--yes",
            "{d}/data",
            "--password-file",
            "{d}/pw",
        ],
        1,
    ),
    row(
        "report",
        &[
            "report",
            "{r}/benches/results/2026-12-01-x86_64-bench-baseline.jsonl",
            "-o",
            "{d}/report.html",
        ],
        None,
        &["report", "{d}/missing.jsonl"],
        5,
    ),
    row(
        "bench",
        &[
            "bench",
            "--iterations",
            "1",
            "--vault-iterations",
            "1",
            "--warmup",
            "0",
        ],
        Some("bench"),
        &["bench", "--iterations", "many"],
        2,
    ),
    row("manpage", &["manpage"], None, &["manpage", "extra"], 2),
    row(
        "completions",
        &["completions", "bash"],
        None,
        &["completions", "nosh"],
        2,
    ),
];

/// `docs/schemas/NAME.schema.json`; `bench` is the evidence format, `docs/bench.schema.json`.
pub(crate) fn schema(name: &str) -> jsonschema::Validator {
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs");
    let path = if name == "bench" {
        docs.join("bench.schema.json")
    } else {
        docs.join(format!("schemas/{name}.schema.json"))
    };
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let schema: Value = serde_json::from_str(&text).unwrap();
    jsonschema::draft202012::new(&schema).expect("a valid draft 2020-12 schema")
}

pub(crate) fn assert_valid(validator: &jsonschema::Validator, what: &str, value: &Value) {
    let errors: Vec<String> = validator
        .iter_errors(value)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{what}: {value}\n{errors:#?}");
}

fn args(template: &[&str], dir: &Path, json: bool) -> Vec<String> {
    let d = dir.display().to_string();
    let bobfp = std::fs::read_to_string(dir.join("bob.fp")).unwrap_or_default();
    let mut out: Vec<String> = vec!["--vault".into(), format!("{d}/v.nxq")];
    for a in template {
        if *a == "KDF" {
            out.extend(KDF.iter().map(|s| s.to_string()));
        } else {
            out.push(
                a.replace("{d}", &d)
                    .replace("{r}", env!("CARGO_MANIFEST_DIR"))
                    .replace("{bobfp}", bobfp.trim()),
            );
        }
    }
    // A later --vault wins over the first.
    if json {
        out.push("--json".into());
    }
    out
}

fn setup(dir: &Path) {
    use std::os::unix::fs::PermissionsExt;
    for (name, text) in [("pw", "pw\n"), ("wrong", "not the password\n")] {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    std::fs::write(dir.join("data"), "some data\n").unwrap();
    std::fs::write(dir.join("empty"), "").unwrap();
    std::fs::create_dir(dir.join("folder")).unwrap();
    // sha256sum manifests: a true one, and one whose hash of `data` is wrong.
    let sha = |b: &[u8]| {
        use sha2::Digest;
        sha2::Sha256::digest(b)
            .iter()
            .map(|x| format!("{x:02x}"))
            .collect::<String>()
    };
    let sums = format!("{}  data\n{}  empty\n", sha(b"some data\n"), sha(b""));
    std::fs::write(dir.join("SHA256SUMS"), sums).unwrap();
    std::fs::write(dir.join("BADSUMS"), format!("{}  data\n", sha(b"other"))).unwrap();
    // Someone else's identity, for the contacts rows: bob.asc and its fingerprint in bob.fp.
    let d = dir.display().to_string();
    let bob = |extra: &[&str]| {
        let mut a: Vec<String> = vec!["--vault".into(), format!("{d}/bob.nxq")];
        a.extend(extra.iter().map(|s| s.replace("{d}", &d)));
        let out = run(dir, &a);
        assert!(out.status.success(), "{a:?}: {}", text(&out.stderr));
        out.stdout
    };
    let mut init = vec!["init", "--password-file", "{d}/pw"];
    init.extend(KDF);
    bob(&init);
    bob(&["identity", "export", "-o", "{d}/bob.asc"]);
    let open: Value = serde_json::from_slice(&bob(&["vault", "open", "--json"])).unwrap();
    std::fs::write(dir.join("bob.fp"), open["fingerprint"].as_str().unwrap()).unwrap();
    // The agent's socket folder: private, inside the test's folder.
    std::fs::create_dir(dir.join("run")).unwrap();
    std::fs::set_permissions(dir.join("run"), std::fs::Permissions::from_mode(0o700)).unwrap();
}

/// The binary in `dir`'s world: its agent sockets under `dir/run`, no inherited vault,
/// backend or contacts book.
fn run(dir: &Path, args: &[String]) -> std::process::Output {
    Command::cargo_bin("nexusq")
        .unwrap()
        .args(args)
        .env_remove("NEXUSQ_VAULT")
        .env_remove("NEXUSQ_BACKEND")
        .env_remove("NEXUSQ_CONTACTS")
        .env("XDG_RUNTIME_DIR", dir.join("run"))
        .env("NO_COLOR", "1")
        .timeout(std::time::Duration::from_secs(120))
        .output()
        .unwrap()
}

/// Rows whose failure still prints results on stdout: the files that did verify, one line
/// each, before the one that did not (and `manpage extra`, which clap answers with help).
fn reports_each_file(name: &str) -> bool {
    matches!(name, "manpage" | "verify FILE..." | "verify --manifest")
}

/// Stops the agent a row started, however the test ends.
struct AgentGuard(std::path::PathBuf);

impl Drop for AgentGuard {
    fn drop(&mut self) {
        let _ = run(&self.0, &args(&["agent", "stop"], &self.0, false));
    }
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn every_command_keeps_the_contract() {
    let error_schema = schema("error");
    for json in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        setup(dir.path());
        let _agent = AgentGuard(dir.path().to_path_buf());
        for row in TABLE {
            let mode = if json { "--json" } else { "text" };
            let what = format!("{} ({mode})", row.name);
            let ok = args(row.ok, dir.path(), json && row.schema.is_some());
            let out = run(dir.path(), &ok);
            assert_eq!(
                out.status.code(),
                Some(0),
                "{what} {ok:?}: {}",
                text(&out.stderr)
            );
            if json && let Some(name) = row.schema {
                let stdout = text(&out.stdout);
                // bench writes JSON lines, every other command one object.
                let lines: Vec<&str> = if name == "bench" {
                    stdout.lines().collect()
                } else {
                    vec![stdout.trim_end()]
                };
                assert!(!lines.is_empty(), "{what}: no output");
                for line in lines {
                    let value: Value = serde_json::from_str(line).unwrap_or_else(|e| {
                        panic!("{what}: not one JSON object ({e}): {stdout:?}")
                    });
                    assert_valid(&schema(name), &what, &value);
                }
            }
            let fail = args(row.fail, dir.path(), json);
            let out = run(dir.path(), &fail);
            let stderr = text(&out.stderr);
            assert_eq!(
                out.status.code(),
                Some(row.code),
                "{what} failure {fail:?}: {stderr}"
            );
            assert!(stderr.contains("error:"), "{what} failure: {stderr}");
            if json {
                let stdout = text(&out.stdout);
                let value: Value = serde_json::from_str(stdout.trim_end()).unwrap_or_else(|e| {
                    panic!("{what} failure: not one JSON object ({e}): {stdout:?}")
                });
                assert_valid(&error_schema, &format!("{what} failure"), &value);
                assert_eq!(value["error"]["code"], row.code, "{what} failure: {value}");
            } else {
                assert!(
                    out.stdout.is_empty() || reports_each_file(row.name),
                    "{what} failure printed: {}",
                    text(&out.stdout)
                );
            }
        }
    }
}

/// Every schema in docs/schemas is a valid schema and belongs to a row (or is the error one).
#[test]
fn every_schema_is_used() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/schemas");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        let stem = name.strip_suffix(".schema.json").expect("NAME.schema.json");
        let _ = schema(stem);
        assert!(
            stem == "error" || TABLE.iter().any(|r| r.schema == Some(stem)),
            "{name} is in no row of the table"
        );
    }
}

/// The error object carries the exit code and kind of the table in docs/cli.md, "Exit codes".
#[test]
fn json_errors_name_code_and_kind() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(dir.path(), &args(&["vault", "open"], dir.path(), true));
    assert_eq!(out.status.code(), Some(4));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error"]["kind"], "vault");
    assert!(!v["error"]["hint"].as_str().unwrap().is_empty());
}

/// A path that is not UTF-8 is reported without loss: a lossy `path` string and, beside it,
/// `path_bytes` with the base64 of its bytes (docs/cli.md, "JSON").
#[test]
fn non_utf8_paths_are_reported_without_loss() {
    use base64::Engine;
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    setup(dir.path());
    let vault = dir.path().join(OsStr::from_bytes(b"caf\xe9.nxq"));
    let export = dir.path().join(OsStr::from_bytes(b"m\xffe.asc"));
    let decode = |v: &Value, field: &str| {
        let b64 = v[format!("{field}_bytes")]
            .as_str()
            .unwrap_or_else(|| panic!("no {field}_bytes in {v}"));
        base64::engine::general_purpose::STANDARD
            .decode(b64)
            .unwrap()
    };
    let json_of = |args: &[&OsStr]| {
        let out = Command::cargo_bin("nexusq")
            .unwrap()
            .arg("--vault")
            .arg(&vault)
            .args(args)
            .arg("--json")
            .env_remove("NEXUSQ_VAULT")
            .env_remove("NEXUSQ_BACKEND")
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
        serde_json::from_slice::<Value>(&out.stdout).unwrap()
    };
    let pw = dir.path().join("pw");
    let init = json_of(&[
        "init".as_ref(),
        "--kdf-memory-mib".as_ref(),
        "8".as_ref(),
        "--kdf-iterations".as_ref(),
        "1".as_ref(),
        "--password-file".as_ref(),
        pw.as_os_str(),
    ]);
    assert_eq!(decode(&init, "vault"), vault.as_os_str().as_bytes());
    assert!(init["vault"].as_str().unwrap().contains('\u{fffd}'));
    let mut revocation = vault.as_os_str().to_os_string();
    revocation.push(".revocation.asc");
    assert_eq!(decode(&init, "revocation"), revocation.as_bytes());

    let exported = json_of(&[
        "identity".as_ref(),
        "export".as_ref(),
        "-o".as_ref(),
        export.as_os_str(),
    ]);
    assert_eq!(decode(&exported, "output"), export.as_os_str().as_bytes());
    let open = json_of(&["vault".as_ref(), "open".as_ref()]);
    assert_eq!(decode(&open, "vault"), vault.as_os_str().as_bytes());
    let doctor = Command::cargo_bin("nexusq")
        .unwrap()
        .arg("--vault")
        .arg(&vault)
        .args(["doctor", "--json"])
        .env_remove("NEXUSQ_VAULT")
        .output()
        .unwrap();
    let doctor: Value = serde_json::from_slice(&doctor.stdout).unwrap();
    assert_eq!(decode(&doctor, "vault_path"), vault.as_os_str().as_bytes());
    // A UTF-8 path gets no `_bytes` field.
    let plain = dir.path().join("plain.asc");
    let exported = json_of(&[
        "identity".as_ref(),
        "export".as_ref(),
        "-o".as_ref(),
        plain.as_os_str(),
    ]);
    assert!(exported.get("output_bytes").is_none(), "{exported}");
}
