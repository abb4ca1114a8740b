#!/usr/bin/env bash
# Install nexusq on an Android phone, in Termux, from this checkout:
#
#     pkg install git
#     git clone <this repository> nexusq && cd nexusq
#     bash termux/install.sh
#
# What it does: installs Rust when it is missing (`pkg install -y rust`), builds and installs
# nexusq with `cargo install --locked --path .`, installs the man page and the bash, zsh and
# fish completions under $PREFIX/share, runs a short `nexusq bench` as a smoke check, and
# prints the next steps. It never creates, reads or changes a vault. Running it again is safe:
# cargo rebuilds only what changed, and the man page and completions are replaced whole.
set -euo pipefail

say() { printf '%s\n' "$*"; }
warn() { printf 'warning: %s\n' "$*" >&2; }
die() {
	printf 'error: %s\n' "$*" >&2
	exit 1
}

checkout=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

if ! command -v pkg >/dev/null 2>&1; then
	# The man page goes beside cargo's bin folder, where man looks once that is on PATH.
	man1=${CARGO_INSTALL_ROOT:-${CARGO_HOME:-$HOME/.cargo}}/share/man/man1
	cat >&2 <<EOF
This installer is for Termux on Android, and Termux's \`pkg\` is not here: nothing was changed.
On Linux, install Rust 1.89 or newer (rustup or your distribution), then run:

    cargo install --locked --path $checkout
    mkdir -p $man1 && nexusq manpage > $man1/nexusq.1

and see README.md for the shell completions.
EOF
	exit 1
fi

if ! grep -q '^name = "nexusq"' "$checkout/Cargo.toml" 2>/dev/null; then
	die "$checkout is not a nexusq checkout; run termux/install.sh from inside one"
fi
prefix=${PREFIX:-}
if [ -z "$prefix" ] || [ ! -d "$prefix" ]; then
	die "PREFIX does not name Termux's usr folder; run this inside the Termux app"
fi

# 1. Rust.
if command -v cargo >/dev/null 2>&1; then
	say "==> Rust is installed: $(cargo --version)"
else
	say "==> installing Rust: pkg install -y rust"
	pkg install -y rust
	command -v cargo >/dev/null 2>&1 || die "cargo is still missing after \`pkg install -y rust\`"
fi

# 2. Build and install (into cargo's bin folder, ~/.cargo/bin unless configured otherwise).
say "==> building nexusq: cargo install --locked --path .  (several minutes on a phone)"
(cd "$checkout" && cargo install --locked --path .)
bin_dir=${CARGO_INSTALL_ROOT:-${CARGO_HOME:-$HOME/.cargo}}/bin
nexusq=$bin_dir/nexusq
if [ ! -x "$nexusq" ]; then
	nexusq=$(command -v nexusq || true)
fi
if [ -z "$nexusq" ] || [ ! -x "$nexusq" ]; then
	die "cargo install finished, but no nexusq binary is in $bin_dir or on PATH"
fi
say "==> installed $nexusq ($("$nexusq" --version))"
# cargo install builds both binaries of the package; the age plugin sits beside nexusq.
plugin=$(dirname "$nexusq")/age-plugin-nexusq
if [ -x "$plugin" ]; then
	say "==> installed $plugin (the age plugin: see docs/age.md)"
else
	warn "no age-plugin-nexusq beside $nexusq: \`age -d -i\` with a nexusq plugin identity will not find it"
fi

# 3. Man page and completions, each written to a temporary file and renamed into place.
install_generated() {
	local dest=$1
	shift
	mkdir -p "$(dirname "$dest")"
	local tmp="$dest.tmp.$$"
	if "$nexusq" "$@" >"$tmp"; then
		mv -f "$tmp" "$dest"
	else
		rm -f "$tmp"
		die "\`nexusq $*\` failed; $dest was left as it was"
	fi
}
share=$prefix/share
install_generated "$share/man/man1/nexusq.1" manpage
install_generated "$share/bash-completion/completions/nexusq" completions bash
install_generated "$share/zsh/site-functions/_nexusq" completions zsh
install_generated "$share/fish/vendor_completions.d/nexusq.fish" completions fish
say "==> installed the man page and the bash, zsh and fish completions under $share"

# 4. Smoke check. It uses a throwaway vault in a temporary folder, never yours; a failure is
# reported, not fatal: nexusq itself is installed.
say "==> smoke check: nexusq bench --iterations 3"
if "$nexusq" bench --iterations 3; then
	say "==> smoke check passed"
else
	warn "the smoke check \`nexusq bench --iterations 3\` failed (exit $?); nexusq is installed, but read the messages above"
fi

# 5. Next steps.
data_home=${XDG_DATA_HOME:-$HOME/.local/share}
case $data_home in
/*) ;;
*) data_home=$HOME/.local/share ;;
esac
vault=${NEXUSQ_VAULT:-$data_home/nexusq/vault.nxq}
say ""
say "Next steps:"
case ":$PATH:" in
*":$(dirname "$nexusq"):"*) ;;
*)
	say "  - put $(dirname "$nexusq") on your PATH:"
	say "      echo 'export PATH=\"$(dirname "$nexusq"):\$PATH\"' >> ~/.bashrc && . ~/.bashrc"
	;;
esac
if [ -e "$vault" ]; then
	say "  - your vault is at $vault: \`nexusq vault open\` shows it"
else
	say "  - nexusq init        create your vault (asks for a password twice); it will be"
	say "                       $vault, in Termux's private home"
	say "    and move the revocation statement it writes next to the vault off the phone"
fi
say "  - nexusq doctor      check permissions, storage, password cost and terminal"
say "  - back up: run termux-setup-storage once, then copy the vault (it is encrypted):"
say "      cp $vault ~/storage/shared/nexusq-vault-backup.nxq"
say "    keep the working vault in Termux's home: shared storage is readable by other apps,"
say "    and nexusq refuses to save there"
say "  - restore: mkdir -p $(dirname "$vault"), copy the backup back to $vault,"
say "    then run \`nexusq vault unlock\` before exporting anything"
say "  - man nexusq (pkg install man); open a new shell for the completions"
