//! The pages a table starts with, read without having been written.
//!
//! A CREATE writes only page 0 (the definition). The meta page, the row tree's root and
//! each index's root (pages 1 to 2 + indexes) exist first in their initial state, which the
//! definition fixes; a read of one the file does not hold yet (past the end of the file, or
//! a hole before a later page) returns that state. This is safe
//! because a page is missing from the file only if it was never written back and synced:
//! a checkpoint writes and syncs every dirty page before it retires the log, so the log
//! holds every change made to a missing page since the table was created.

use crate::btree;
use crate::codec;
use crate::page::*;
use myriad_cache::FileCache;
use std::io;

/// Page 0 of a new table file: the file header and the encoded definition (page LSN 0).
pub(crate) fn header_page(space: u64, def_bytes: &[u8]) -> Vec<u8> {
    let mut p = vec![0u8; PAGE_SIZE];
    init_header(&mut p, space, 0, TYPE_FILE_HEADER);
    p[file_header::MAGIC..file_header::MAGIC + 8].copy_from_slice(FILE_MAGIC);
    put_u32(&mut p, file_header::DEF_LEN, def_bytes.len() as u32);
    p[file_header::DEF..file_header::DEF + def_bytes.len()].copy_from_slice(def_bytes);
    p
}

/// The encoded definition on page 0 (`page` verified), or what is wrong with the page.
pub(crate) fn header_definition(page: &[u8]) -> Result<&[u8], &'static str> {
    if page_type(page) != TYPE_FILE_HEADER
        || &page[file_header::MAGIC..file_header::MAGIC + 8] != FILE_MAGIC
    {
        return Err("not a myriad table file");
    }
    let len = get_u32(page, file_header::DEF_LEN) as usize;
    page.get(file_header::DEF..file_header::DEF + len)
        .ok_or("definition length")
}

/// Write page `page_no` of table file `space`, its checksum stamped into a copy.
pub(crate) fn write_stored_page(
    files: &FileCache,
    space: u64,
    page_no: u32,
    page: &[u8],
) -> io::Result<()> {
    files.write_at(space, &stamped(page), page_no as u64 * PAGE_SIZE as u64)
}

/// A copy of `page` with its checksum stamped, as a file holds it.
fn stamped(page: &[u8]) -> Vec<u8> {
    let mut copy = page.to_vec();
    stamp_checksum(&mut copy);
    copy
}

/// Write page 0 of a new table file: only its start, up to the end of the definition (a
/// few hundred bytes instead of 16 KB: a CREATE's write and the page cache it fills shrink
/// with it), the checksum stamped over the whole page. Reads zero-fill what a file lacks,
/// so the short file reads as the whole page.
pub(crate) fn write_header_page(files: &FileCache, space: u64, page: &[u8]) -> io::Result<()> {
    let used = header_definition(page).map_or(PAGE_SIZE, |def| file_header::DEF + def.len());
    files.write_at(space, &stamped(page)[..used], 0)
}

/// Extend a file that holds only page 0's start with zeros to the whole page (what a read
/// returns for the missing bytes anyway). Called before a table's first write: once later
/// pages reach the file, a short page 0 would become a hole, and a cold read of a hole makes
/// the kernel zero-fill new page-cache pages, which on a VM costs the first touch of
/// memory; better paid by the table's first write than by the next read of its definition.
/// A file already whole costs one fstat.
pub(crate) fn complete_header_page(files: &FileCache, space: u64) -> io::Result<()> {
    let len = files.len(space)?;
    if len < PAGE_SIZE as u64 {
        let zeros = vec![0u8; PAGE_SIZE - len as usize];
        files.write_at(space, &zeros, len)?;
    }
    Ok(())
}

/// Page `page_no` (not 0) of a new table with `n_index` indexes, as CREATE leaves it.
/// `page_no` must be below [`initial_page_count`].
pub(crate) fn init_page(p: &mut [u8], space: u64, page_no: u32, n_index: usize) {
    if page_no == META_PAGE {
        init_header(p, space, META_PAGE, TYPE_META);
        put_u32(p, meta::PAGE_COUNT, initial_page_count(n_index));
        put_u32(p, meta::FREE_HEAD, 0);
        put_u64(p, meta::NEXT_ROW_ID, 1);
        put_u64(p, meta::AUTO_INCREMENT, 1);
        put_u64(p, meta::ROW_COUNT, 0);
        put_u32(p, meta::INDEX_COUNT, n_index as u32);
    } else {
        init_header(p, space, page_no, TYPE_LEAF);
        btree::init_node(p, TYPE_LEAF, 0);
    }
}

/// Pages a new table starts with: header, meta, the row tree's root, one root per index.
pub(crate) fn initial_page_count(n_index: usize) -> u32 {
    3 + n_index as u32
}

/// Whether a page read from a file holds nothing: never written (a short read is
/// zero-filled first).
pub(crate) fn never_written(p: &[u8]) -> bool {
    p.iter().all(|&b| b == 0)
}

/// Read page `page_no` of table file `space` into `buf`, verified; a page the file does not
/// hold yet that the table started with reads in its initial state. Any other page that
/// fails to verify is an `InvalidData` error.
pub(crate) fn read_stored_page(
    files: &FileCache,
    space: u64,
    page_no: u32,
    buf: &mut [u8],
) -> io::Result<()> {
    read_zero_filled(files, space, page_no, buf)?;
    check_stored_page(files, space, page_no, buf)
}

/// Verify page `page_no` as read from the file (zero-filled past its end): a page the file
/// does not hold yet that the table started with becomes its initial state; any other page
/// that fails to verify is an `InvalidData` error.
pub(crate) fn check_stored_page(
    files: &FileCache,
    space: u64,
    page_no: u32,
    buf: &mut [u8],
) -> io::Result<()> {
    let invalid = match verify(buf, page_no, Some(space)) {
        Ok(()) => return Ok(()),
        Err(e) => e,
    };
    if page_no != 0 && never_written(buf) {
        let n_index = index_count(files, space)?;
        if page_no < initial_page_count(n_index) {
            init_page(buf, space, page_no, n_index);
            return Ok(());
        }
    }
    Err(io::Error::new(
        io::ErrorKind::InvalidData,
        format!("table file {space}: {invalid}"),
    ))
}

/// Read from page `page_no` as the file holds it (as many pages as `buf` holds, in one
/// read), what the file lacks as zeros; unverified (see [`check_stored_page`]).
pub(crate) fn read_zero_filled(
    files: &FileCache,
    space: u64,
    page_no: u32,
    buf: &mut [u8],
) -> io::Result<()> {
    let read = files.read_up_to(space, buf, page_no as u64 * PAGE_SIZE as u64)?;
    buf[read..].fill(0);
    Ok(())
}

/// The number of indexes in the definition on page 0 of the file.
fn index_count(files: &FileCache, space: u64) -> io::Result<usize> {
    let bad = |what: String| io::Error::new(io::ErrorKind::InvalidData, what);
    let mut page = vec![0u8; PAGE_SIZE];
    read_zero_filled(files, space, 0, &mut page)?;
    verify(&page, 0, Some(space)).map_err(|e| bad(format!("table file {space}: {e}")))?;
    let def = header_definition(&page).map_err(|e| bad(format!("table file {space}: {e}")))?;
    let def = codec::decode_def(def).map_err(|e| bad(format!("table file {space}: {e}")))?;
    Ok(def.indexes.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPACE: u64 = 77;

    /// A table file as CREATE leaves it: page 0 only, for a table with two indexes.
    fn new_table_file(dir: &std::path::Path) -> FileCache {
        let def = codec::tests::sample_def();
        assert_eq!(def.indexes.len(), 2);
        let files = FileCache::new(4);
        files.create(SPACE, dir.join("t.myt")).unwrap();
        let page0 = header_page(SPACE, &codec::encode_def(&def));
        write_stored_page(&files, SPACE, 0, &page0).unwrap();
        files
    }

    fn read(files: &FileCache, page_no: u32) -> io::Result<Vec<u8>> {
        let mut buf = vec![0xAAu8; PAGE_SIZE];
        read_stored_page(files, SPACE, page_no, &mut buf).map(|()| buf)
    }

    #[test]
    fn a_new_file_holds_page_0_and_reads_the_initial_pages() {
        let dir = tempfile::tempdir().unwrap();
        let files = new_table_file(dir.path());
        assert_eq!(files.len(SPACE).unwrap(), PAGE_SIZE as u64);
        let page0 = read(&files, 0).unwrap();
        assert_eq!(page_type(&page0), TYPE_FILE_HEADER);
        let meta_page = read(&files, META_PAGE).unwrap();
        assert_eq!(page_type(&meta_page), TYPE_META);
        assert_eq!(get_u32(&meta_page, meta::PAGE_COUNT), 5);
        assert_eq!(get_u32(&meta_page, meta::INDEX_COUNT), 2);
        assert_eq!(get_u64(&meta_page, meta::NEXT_ROW_ID), 1);
        for root in [ROW_TREE_ROOT, index_root(0), index_root(1)] {
            let page = read(&files, root).unwrap();
            assert_eq!(
                (page_type(&page), get_u32(&page, OFF_PAGE_NO)),
                (TYPE_LEAF, root)
            );
        }
        // Not a page the table starts with: never valid unwritten.
        let err = read(&files, 5).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
    }

    /// A table file as CREATE leaves it (page 0 up to its definition), with the encoded
    /// definition and page 0.
    fn short_table_file(dir: &std::path::Path) -> (FileCache, Vec<u8>, Vec<u8>) {
        let def = codec::encode_def(&codec::tests::sample_def());
        let files = FileCache::new(4);
        files.create(SPACE, dir.join("t.myt")).unwrap();
        let page0 = header_page(SPACE, &def);
        write_header_page(&files, SPACE, &page0).unwrap();
        (files, def, page0)
    }

    #[test]
    fn a_created_file_holds_page_0_up_to_its_definition_and_reads_whole() {
        let dir = tempfile::tempdir().unwrap();
        let (files, def, page0) = short_table_file(dir.path());
        assert_eq!(
            files.len(SPACE).unwrap(),
            (file_header::DEF + def.len()) as u64
        );
        let mut expected = page0.clone();
        stamp_checksum(&mut expected);
        assert_eq!(read(&files, 0).unwrap(), expected);
        assert_eq!(page_type(&read(&files, META_PAGE).unwrap()), TYPE_META);
        // Once a later page is written, page 0's rest is a hole: it still reads whole.
        let mut page4 = vec![0u8; PAGE_SIZE];
        init_header(&mut page4, SPACE, 4, TYPE_LEAF);
        write_stored_page(&files, SPACE, 4, &page4).unwrap();
        assert_eq!(read(&files, 0).unwrap(), expected);
        assert_eq!(page_type(&read(&files, META_PAGE).unwrap()), TYPE_META);
    }

    #[test]
    fn completing_page_0_fills_a_short_file_with_zeros_and_leaves_a_whole_one() {
        let dir = tempfile::tempdir().unwrap();
        let (files, _, _) = short_table_file(dir.path());
        let short = read(&files, 0).unwrap();
        complete_header_page(&files, SPACE).unwrap();
        assert_eq!(files.len(SPACE).unwrap(), PAGE_SIZE as u64);
        assert_eq!(read(&files, 0).unwrap(), short);
        // A whole page 0 (and the pages after it) stay as they are.
        let mut meta_page = vec![0u8; PAGE_SIZE];
        let n_index = codec::tests::sample_def().indexes.len();
        init_page(&mut meta_page, SPACE, META_PAGE, n_index);
        write_stored_page(&files, SPACE, META_PAGE, &meta_page).unwrap();
        let before = std::fs::read(dir.path().join("t.myt")).unwrap();
        complete_header_page(&files, SPACE).unwrap();
        assert_eq!(std::fs::read(dir.path().join("t.myt")).unwrap(), before);
    }

    #[test]
    fn holes_are_initial_pages_and_written_pages_are_checked() {
        let dir = tempfile::tempdir().unwrap();
        let files = new_table_file(dir.path());
        // A later page written first leaves holes where pages 1 to 4 go.
        let mut page7 = vec![0u8; PAGE_SIZE];
        init_header(&mut page7, SPACE, 7, TYPE_LEAF);
        stamp_checksum(&mut page7);
        files.write_at(SPACE, &page7, 7 * PAGE_SIZE as u64).unwrap();
        assert_eq!(page_type(&read(&files, META_PAGE).unwrap()), TYPE_META);
        assert_eq!(page_type(&read(&files, 7).unwrap()), TYPE_LEAF);
        assert!(read(&files, 6).is_err(), "a hole past the initial pages");
        // A written initial page is what the file holds, and a torn one is an error.
        let mut root = vec![0u8; PAGE_SIZE];
        init_header(&mut root, SPACE, ROW_TREE_ROOT, TYPE_INTERNAL);
        stamp_checksum(&mut root);
        files.write_at(SPACE, &root, 2 * PAGE_SIZE as u64).unwrap();
        assert_eq!(
            page_type(&read(&files, ROW_TREE_ROOT).unwrap()),
            TYPE_INTERNAL
        );
        files
            .write_at(SPACE, &[1, 2, 3], 2 * PAGE_SIZE as u64 + 100)
            .unwrap();
        assert!(
            read(&files, ROW_TREE_ROOT).is_err(),
            "a torn page was served"
        );
        // Without a valid page 0, no page reads as initial.
        files.write_at(SPACE, &[0xFF], 50).unwrap();
        assert!(read(&files, META_PAGE).is_err());
    }
}
