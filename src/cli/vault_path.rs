//! Where the vault is, the same way for the three programs (`nexusq`, `nexusq-git-sign`,
//! `age-plugin-nexusq`): the command line's `--vault` when it has one, else `$NEXUSQ_VAULT`,
//! else the platform's default place (docs/cli.md). Their password sources are the other
//! shared piece, `cli::password`.

use nexusq_core::vault::storage;
use std::path::{Path, PathBuf};

/// The vault's path: `flag` (a `--vault` given), else `$NEXUSQ_VAULT`, else the platform's
/// default; `None` when there is no home folder to find the default in.
pub fn resolve(flag: Option<&Path>) -> Option<PathBuf> {
    storage::default_vault_path(
        flag,
        std::env::var_os("NEXUSQ_VAULT"),
        storage::platform_data_dir(),
    )
}
