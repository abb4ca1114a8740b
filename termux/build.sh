# termux-packages recipe for nexusq: copy this file to packages/nexusq/build.sh in a
# termux-packages checkout and run `./build-package.sh nexusq` (or `-I` on the phone).
# It cannot be built in nexusq's own CI (no Android NDK there); tests/system/termux.rs lints it.
#
# Cross builds cannot run the Android binary on the build host, so the man page and the shell
# completions (which do not depend on the target) come from a second, host build of the same
# source; on-device builds run the freshly built binary instead.
TERMUX_PKG_HOMEPAGE=https://example.invalid/nexusq
TERMUX_PKG_DESCRIPTION="A command-line vault for one person's post-quantum identity"
TERMUX_PKG_LICENSE="MIT, Apache-2.0"
TERMUX_PKG_MAINTAINER="@nexusq"
TERMUX_PKG_VERSION=0.1.0
TERMUX_PKG_SRCURL=https://example.invalid/nexusq/archive/refs/tags/v${TERMUX_PKG_VERSION}.tar.gz
# Placeholder until the v0.1.0 release tarball exists: replace it with that tarball's
# `sha256sum` (termux-packages refuses a mismatch, so a stale value cannot slip through).
TERMUX_PKG_SHA256=0000000000000000000000000000000000000000000000000000000000000000
# Pure Rust (no C dependencies, docs/security.md section 8): the binary needs only Android's libc.
TERMUX_PKG_DEPENDS=""
TERMUX_PKG_RECOMMENDS="bash-completion"
TERMUX_PKG_BUILD_IN_SRC=true

termux_step_make() {
	termux_setup_rust
	cargo build --jobs "$TERMUX_PKG_MAKE_PROCESSES" --release --locked --target "$CARGO_TARGET_NAME"
}

# Runs `nexusq ARGS...` on the build machine: the target binary on the phone, else a host build.
_nexusq_on_build_machine() {
	if [ "$TERMUX_ON_DEVICE_BUILD" = "true" ]; then
		"target/$CARGO_TARGET_NAME/release/nexusq" "$@"
	else
		# RUSTFLAGS may carry flags meant for the Android target; the host build needs none.
		env -u RUSTFLAGS -u CARGO_BUILD_TARGET \
			cargo run --quiet --jobs "$TERMUX_PKG_MAKE_PROCESSES" --release --locked -- "$@"
	fi
}

termux_step_make_install() {
	install -Dm700 -t "$TERMUX_PREFIX/bin" "target/$CARGO_TARGET_NAME/release/nexusq"
	# The age plugin: `age -d -i` with an AGE-PLUGIN-NEXUSQ-1 identity runs it (docs/age.md).
	install -Dm700 -t "$TERMUX_PREFIX/bin" "target/$CARGO_TARGET_NAME/release/age-plugin-nexusq"

	install -d "$TERMUX_PREFIX/share/man/man1" \
		"$TERMUX_PREFIX/share/bash-completion/completions" \
		"$TERMUX_PREFIX/share/zsh/site-functions" \
		"$TERMUX_PREFIX/share/fish/vendor_completions.d"
	_nexusq_on_build_machine manpage > "$TERMUX_PREFIX/share/man/man1/nexusq.1"
	_nexusq_on_build_machine completions bash > "$TERMUX_PREFIX/share/bash-completion/completions/nexusq"
	_nexusq_on_build_machine completions zsh > "$TERMUX_PREFIX/share/zsh/site-functions/_nexusq"
	_nexusq_on_build_machine completions fish > "$TERMUX_PREFIX/share/fish/vendor_completions.d/nexusq.fish"
}
