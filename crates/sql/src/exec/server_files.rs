//! Files of the server's machine that a statement names: LOAD DATA INFILE (without LOCAL)
//! reads one (`crate::exec::load_data`), SELECT ... INTO OUTFILE and DUMPFILE write one
//! (`crate::exec::select_outfile`). Both need the global FILE privilege, checked by each
//! statement with MariaDB's error for it.
//!
//! A name is taken as MariaDB takes it: an absolute path as it is; a bare file name in a
//! database's directory (the default database's, else the one the statement names, else
//! the datadir); a relative path with a directory under the datadir. The path must then
//! resolve (the file, or the directory it would be made in) and lie outside `/proc`, and
//! with `secure_file_priv` set inside that directory: else 1290, as MariaDB answers.

use crate::error::SqlError;
use crate::value::Value;
use crate::Session;
use myriad_types::errors::ER_OPTION_PREVENTS_STATEMENT;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

impl Session {
    /// The path of server-side file `name`; `bare_in` is the database whose directory
    /// holds a bare file name (None: the datadir).
    pub(crate) fn server_path(
        &self,
        name: &str,
        bare_in: Option<&str>,
    ) -> Result<PathBuf, SqlError> {
        let storage = self.engine.catalog.storage();
        let path = Path::new(name);
        let path = if path.is_absolute() {
            path.to_path_buf()
        } else if !name.contains('/') {
            match bare_in {
                Some(db) => storage.database_dir(db).join(name),
                None => storage.datadir().join(name),
            }
        } else {
            storage.datadir().join(name)
        };
        let secure = match self.engine.global_variable("secure_file_priv") {
            Some(Value::Bytes(dir)) if !dir.is_empty() => {
                Some(PathBuf::from(String::from_utf8_lossy(&dir).into_owned()))
            }
            _ => None,
        };
        match allowed(&path, secure.as_deref()) {
            true => Ok(path),
            false => Err(SqlError::new(
                ER_OPTION_PREVENTS_STATEMENT,
                "The MariaDB server is running with the --secure-file-priv option so it \
                 cannot execute this statement",
            )),
        }
    }
}

/// Whether `path` may be read or written: it resolves, is not under `/proc`, and is under
/// `secure` (resolved too) when that is set.
fn allowed(path: &Path, secure: Option<&Path>) -> bool {
    let Some(resolved) = resolve(path) else {
        return false;
    };
    if resolved.starts_with("/proc") {
        return false;
    }
    match secure.map(Path::canonicalize) {
        None => true,
        Some(Ok(dir)) => resolved.starts_with(dir),
        Some(Err(_)) => false,
    }
}

/// `path` resolved, or for a file that does not exist the directory its name is in (the
/// text before its last `/`, which must resolve as it is written).
fn resolve(path: &Path) -> Option<PathBuf> {
    if let Ok(resolved) = path.canonicalize() {
        return Some(resolved);
    }
    let bytes = path.as_os_str().as_bytes();
    let cut = bytes.iter().rposition(|&b| b == b'/')?;
    let dir = Path::new(std::ffi::OsStr::from_bytes(&bytes[..=cut]));
    dir.canonicalize().ok()
}

/// MariaDB's `N "reason"` of an operating system error, for its `(Errcode: %M)`.
pub(crate) fn errcode(e: &std::io::Error) -> String {
    let errno = e.raw_os_error().unwrap_or(0);
    let text = e.to_string();
    let reason = text.split(" (os error").next().unwrap_or(&text);
    format!("{errno} \"{reason}\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_must_resolve_stay_out_of_proc_and_inside_the_secure_directory() {
        let dir = std::env::temp_dir().join(format!("server-files-{}", std::process::id()));
        let inside = dir.join("inside");
        std::fs::create_dir_all(&inside).unwrap();
        std::fs::write(dir.join("there"), b"x").unwrap();
        assert!(allowed(&dir.join("there"), None));
        assert!(allowed(&dir.join("not yet"), None));
        assert!(!allowed(&dir.join("no dir/file"), None));
        assert!(!allowed(&dir.join("no dir/"), None));
        assert!(!allowed(Path::new("/proc/self/status"), None));
        assert!(!allowed(Path::new("/proc/new"), None));
        assert!(allowed(&inside.join("new"), Some(&inside)));
        assert!(!allowed(&dir.join("there"), Some(&inside)));
        assert!(!allowed(&inside.join("../there"), Some(&inside)));
        assert!(!allowed(&inside.join("new"), Some(&dir.join("missing"))));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn errcodes_read_as_mariadb_s() {
        let e = std::io::Error::from_raw_os_error(13);
        assert_eq!(errcode(&e), "13 \"Permission denied\"");
    }
}
