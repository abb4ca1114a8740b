//! Run the `nexusq` binary at a real terminal: a pseudo-terminal whose slave side is the
//! child's stdin, stdout, stderr and controlling terminal (so `/dev/tty` and `isatty` see a
//! terminal, as for a person at a phone). Output post-processing is off, so what the test reads
//! is exactly the bytes nexusq wrote (no LF -> CRLF); input echo stays on, as on a real
//! terminal, except where nexusq turns it off for a password.
//!
//! Included by a test binary's `main.rs` with `#[path = "../common/pty.rs"] mod pty;`.
#![allow(dead_code)]

use rustix::pty::{OpenptFlags, grantpt, openpt, ptsname, unlockpt};
use rustix::termios::{OptionalActions, OutputModes, tcgetattr, tcsetattr};
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, ExitStatus};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A child process at a terminal, and everything it has shown so far.
pub struct Terminal {
    child: Child,
    master: File,
    shown: Arc<Mutex<Vec<u8>>>,
    reader: Option<std::thread::JoinHandle<()>>,
}

/// A new pseudo-terminal, before anything runs on it.
pub struct Pty {
    master: std::os::fd::OwnedFd,
    slave: File,
    path: std::path::PathBuf,
}

impl Pty {
    pub fn open() -> Pty {
        let master = openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY | OpenptFlags::CLOEXEC)
            .expect("open a pseudo-terminal");
        grantpt(&master).unwrap();
        unlockpt(&master).unwrap();
        let path =
            std::path::PathBuf::from(ptsname(&master, Vec::new()).unwrap().into_string().unwrap());
        let slave = OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(rustix::fs::OFlags::NOCTTY.bits() as i32)
            .open(&path)
            .unwrap();
        let mut modes = tcgetattr(&slave).unwrap();
        modes.output_modes.remove(OutputModes::OPOST);
        tcsetattr(&slave, OptionalActions::Now, &modes).unwrap();
        Pty {
            master,
            slave,
            path,
        }
    }

    /// The terminal's own device (/dev/pts/N), as a program could name it with `-o`.
    pub fn path(&self) -> &std::path::Path {
        &self.path
    }

    /// Start `cmd` (its stdio is replaced) on this terminal.
    pub fn spawn(self, mut cmd: Command) -> Terminal {
        let Pty { master, slave, .. } = self;
        cmd.stdin(slave.try_clone().unwrap())
            .stdout(slave.try_clone().unwrap())
            .stderr(slave);
        // SAFETY: between fork and exec only async-signal-safe system calls run: setsid and
        // the TIOCSCTTY ioctl on fd 0 (the terminal, already in place), which makes it the new
        // session's controlling terminal.
        unsafe {
            cmd.pre_exec(|| {
                rustix::process::setsid()?;
                rustix::process::ioctl_tiocsctty(BorrowedFd::borrow_raw(0))?;
                Ok(())
            });
        }
        let child = cmd.spawn().expect("start nexusq");
        // The Command holds copies of the slave side; without them, reading the master ends
        // (EIO) once the child exits.
        drop(cmd);
        let mut reading = File::from(master.as_fd().try_clone_to_owned().unwrap());
        let master = File::from(master);
        let shown = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&shown);
        let reader = std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            loop {
                match reading.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => sink.lock().unwrap().extend_from_slice(&buf[..n]),
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    // EIO: the last slave descriptor closed.
                    Err(_) => break,
                }
            }
        });
        Terminal {
            child,
            master,
            shown,
            reader: Some(reader),
        }
    }
}

impl Terminal {
    /// Start `cmd` (its stdio is replaced) at a new terminal.
    pub fn spawn(cmd: Command) -> Terminal {
        Pty::open().spawn(cmd)
    }

    /// Everything shown so far.
    pub fn shown(&self) -> Vec<u8> {
        self.shown.lock().unwrap().clone()
    }

    /// Wait until the terminal shows `text` (panics after 60 s, with what it did show).
    pub fn wait_for(&self, text: &str) {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let shown = self.shown();
            if shown.windows(text.len()).any(|w| w == text.as_bytes()) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "the terminal never showed {text:?}; it showed {:?}",
                String::from_utf8_lossy(&shown)
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Type `text` at the terminal.
    pub fn type_text(&mut self, text: &str) {
        self.master.write_all(text.as_bytes()).unwrap();
    }

    /// Wait for the child to exit; its status and everything it showed.
    pub fn finish(mut self) -> (ExitStatus, Vec<u8>) {
        let status = self.child.wait().unwrap();
        if let Some(r) = self.reader.take() {
            r.join().unwrap();
        }
        (status, self.shown())
    }
}

/// Run `cmd` at a terminal with nothing typed; its status and everything it showed.
pub fn run(cmd: Command) -> (ExitStatus, Vec<u8>) {
    Terminal::spawn(cmd).finish()
}

/// The bytes of `shown` that a terminal would act on rather than show: below 0x20 other than
/// LF and TAB, and DEL. Empty means the output is inert.
pub fn control_bytes(shown: &[u8]) -> Vec<u8> {
    shown
        .iter()
        .copied()
        .filter(|&b| (b < 0x20 && b != b'\n' && b != b'\t') || b == 0x7f)
        .collect()
}
