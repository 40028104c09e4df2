//! A database's options file, `db.opt` in its directory (MySQL's name and format): the
//! database's default character set and collation, which its new tables take when they
//! name neither. A database without the file has the server's default
//! (utf8mb4_general_ci); the file is written only for another collation, whole and synced
//! before CREATE DATABASE returns.

use crate::types::Collation;
use std::io;
use std::path::Path;

/// The file's name inside the database directory.
pub const FILE: &str = "db.opt";

/// Write `collation` as the default of the database in `dir`.
pub fn write(dir: &Path, collation: Collation) -> io::Result<()> {
    let text = format!(
        "default-character-set={}\ndefault-collation={}\n",
        collation.charset(),
        collation.name()
    );
    crate::redo::write_private_file(&dir.join(FILE), text.as_bytes())
}

/// The default collation of the database in `dir`: the file's, else the server's default.
/// A collation the file names that this server does not know reads as the default.
pub fn read(dir: &Path) -> io::Result<Collation> {
    let text = match std::fs::read_to_string(dir.join(FILE)) {
        Ok(t) => t,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Collation::default()),
        Err(e) => return Err(e),
    };
    Ok(text
        .lines()
        .find_map(|l| l.strip_prefix("default-collation="))
        .and_then(|name| Collation::by_name(name.trim()))
        .unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_written_collation_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read(dir.path()).unwrap(), Collation::Utf8mb4GeneralCi);
        for c in [
            Collation::Utf8mb4Bin,
            Collation::Binary,
            Collation::Utf8mb4GeneralCi,
        ] {
            write(dir.path(), c).unwrap();
            assert_eq!(read(dir.path()).unwrap(), c);
        }
    }
}
