//! Page format. Every page of a table file is `PAGE_SIZE` bytes and starts with the common
//! header:
//!
//! ```text
//! 0..4    crc32c of bytes 4..PAGE_SIZE (stamped on write, verified on every read from disk)
//! 4..8    page number (u32 LE)       -- a page read at the wrong offset is detected
//! 8..16   space id (u64 LE)          -- the file's identity, same on every page
//! 16..24  page LSN (u64 LE)          -- end LSN of the last redo record applied
//! 24      page type
//! 25..32  reserved (zero)
//! ```
//!
//! Page 0 holds the file header and the table definition. Its bytes never change after the
//! file is created (a rewrite by a flush writes identical bytes, so even a torn write leaves
//! it intact); ALTER TABLE writes a new file. Page 1 is the meta page (page count, free
//! list, row id and auto-increment counters, row count, tree roots). Pages 2.. are B+tree
//! nodes (the row tree's root is page 2, index i's root is page 3 + i; roots never move),
//! overflow pages and free pages. Node layout is in `btree`.
//!
//! A page of all zeros is never valid (its checksum field would have to be the crc of zeros
//! and its page number 0 with type FREE), so a hole in a file reads as corrupt, not as data,
//! except where it is one of the pages a new table starts with (`initial_pages`).

use crate::types::StorageError;

pub const PAGE_SIZE: usize = 16384;
pub const HEADER_SIZE: usize = 32;

pub const OFF_CHECKSUM: usize = 0;
pub const OFF_PAGE_NO: usize = 4;
pub const OFF_SPACE: usize = 8;
pub const OFF_LSN: usize = 16;
pub const OFF_TYPE: usize = 24;

pub const TYPE_FREE: u8 = 0;
pub const TYPE_FILE_HEADER: u8 = 1;
pub const TYPE_META: u8 = 2;
pub const TYPE_LEAF: u8 = 3;
pub const TYPE_INTERNAL: u8 = 4;
pub const TYPE_OVERFLOW: u8 = 5;

/// Magic at the start of page 0's body.
pub const FILE_MAGIC: &[u8; 8] = b"MYRIADT1";

#[inline]
pub fn get_u16(p: &[u8], off: usize) -> u16 {
    u16::from_le_bytes([p[off], p[off + 1]])
}
#[inline]
pub fn put_u16(p: &mut [u8], off: usize, v: u16) {
    p[off..off + 2].copy_from_slice(&v.to_le_bytes());
}
#[inline]
pub fn get_u32(p: &[u8], off: usize) -> u32 {
    u32::from_le_bytes([p[off], p[off + 1], p[off + 2], p[off + 3]])
}
#[inline]
pub fn put_u32(p: &mut [u8], off: usize, v: u32) {
    p[off..off + 4].copy_from_slice(&v.to_le_bytes());
}
#[inline]
pub fn get_u64(p: &[u8], off: usize) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&p[off..off + 8]);
    u64::from_le_bytes(b)
}
#[inline]
pub fn put_u64(p: &mut [u8], off: usize, v: u64) {
    p[off..off + 8].copy_from_slice(&v.to_le_bytes());
}

pub fn page_lsn(p: &[u8]) -> u64 {
    get_u64(p, OFF_LSN)
}
pub fn page_type(p: &[u8]) -> u8 {
    p[OFF_TYPE]
}

/// Initialise the common header of a fresh page (the rest is left as is).
pub fn init_header(p: &mut [u8], space: u64, page_no: u32, ty: u8) {
    put_u32(p, OFF_PAGE_NO, page_no);
    put_u64(p, OFF_SPACE, space);
    p[OFF_TYPE] = ty;
}

/// Stamp the checksum (on the way to disk).
pub fn stamp_checksum(p: &mut [u8]) {
    let crc = crc32c::crc32c(&p[4..]);
    put_u32(p, OFF_CHECKSUM, crc);
}

/// Verify a page read from disk: checksum, page number, and (when known) space id.
pub fn verify(p: &[u8], page_no: u32, space: Option<u64>) -> Result<(), StorageError> {
    let stored = get_u32(p, OFF_CHECKSUM);
    let actual = crc32c::crc32c(&p[4..]);
    if stored != actual || p.iter().all(|&b| b == 0) {
        return Err(StorageError::Corrupt(format!(
            "page {page_no}: checksum mismatch (stored {stored:08x}, computed {actual:08x}): torn or corrupt page"
        )));
    }
    if get_u32(p, OFF_PAGE_NO) != page_no {
        return Err(StorageError::Corrupt(format!(
            "page {page_no}: header names page {}",
            get_u32(p, OFF_PAGE_NO)
        )));
    }
    if let Some(space) = space {
        if get_u64(p, OFF_SPACE) != space {
            return Err(StorageError::Corrupt(format!(
                "page {page_no}: belongs to another file"
            )));
        }
    }
    Ok(())
}

/// Meta page (page 1) fields, after the common header.
pub mod meta {
    pub const PAGE_COUNT: usize = 32;
    pub const FREE_HEAD: usize = 36;
    pub const NEXT_ROW_ID: usize = 40;
    pub const AUTO_INCREMENT: usize = 48;
    pub const ROW_COUNT: usize = 56;
    pub const INDEX_COUNT: usize = 64;
}

/// Page 0 body: magic, definition length, definition bytes.
pub mod file_header {
    pub const MAGIC: usize = 32;
    pub const DEF_LEN: usize = 40;
    pub const DEF: usize = 44;
}

pub const META_PAGE: u32 = 1;
pub const ROW_TREE_ROOT: u32 = 2;

/// The root page of index `i` (roots are fixed when the file is created).
pub fn index_root(i: usize) -> u32 {
    3 + i as u32
}
