#!/usr/bin/env bash
# Rotate the nexusq identity's working keys, re-export the public identity and log the result.
# Meant for cron (cronie: `crontab -e`, then e.g. `0 4 * * 1 ~/bin/rotate-weekly.sh`) or a
# Termux:Tasker task. It never asks anything: the password comes from a file (chmod 600, kept in
# Termux's home, never in shared storage).
#
# Settings (environment):
#   NEXUSQ_PASSWORD_FILE  password file            [~/.config/nexusq/password]
#   NEXUSQ_EXPORT         where the export goes    [~/nexusq-identity.asc]
#   NEXUSQ_LOG            log file                 [~/.local/state/nexusq/rotate.log]
#   NEXUSQ_VALIDITY_DAYS  certificate validity     [30]
#   NEXUSQ_KEEP           generations that keep their decryption keys (older ones are retired,
#                         which makes old files undecryptable: forward secrecy) [unset: keep all]
#   NEXUSQ_VAULT          the vault, as for nexusq itself
set -u -o pipefail

password_file=${NEXUSQ_PASSWORD_FILE:-$HOME/.config/nexusq/password}
export_file=${NEXUSQ_EXPORT:-$HOME/nexusq-identity.asc}
log=${NEXUSQ_LOG:-$HOME/.local/state/nexusq/rotate.log}
validity=${NEXUSQ_VALIDITY_DAYS:-30}
nexusq=${NEXUSQ_BIN:-nexusq}

mkdir -p "$(dirname "$log")"
stamp() { date -u +%Y-%m-%dT%H:%M:%SZ; }
say() { printf '%s %s\n' "$(stamp)" "$*" >>"$log"; }

retire=()
if [ -n "${NEXUSQ_KEEP:-}" ]; then
    retire=(--retire-older-than "$NEXUSQ_KEEP" --yes)
fi

# NO_COLOR keeps escape codes out of the log; --json gives one line to record.
status=0
result=$(NO_COLOR=1 "$nexusq" --json rotate --password-file "$password_file" \
    --validity "$validity" --reason "scheduled rotation" "${retire[@]}" 2>>"$log") || status=$?
if [ "$status" -ne 0 ]; then
    say "rotate FAILED (exit $status); see the messages above"
    exit "$status"
fi
say "rotated: $result"

# With the password the export is checked by unlock first; -o replaces the file atomically,
# so a failed export never leaves a half-written one.
NO_COLOR=1 "$nexusq" --json identity export --password-file "$password_file" \
    -o "$export_file" >>"$log" 2>&1 || status=$?
if [ "$status" -ne 0 ]; then
    say "export FAILED (exit $status)"
    exit "$status"
fi
say "exported the public identity to $export_file"
