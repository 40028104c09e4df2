//! B+trees over byte keys in slotted pages: the row tree (row id -> row bytes) and one tree
//! per index (memcomparable key -> row id).
//!
//! Node layout (after the 32-byte common page header, see `page`):
//!
//! ```text
//! 32..34 number of cells     34..36 start of the cell area (cells grow down from the end)
//! 36..38 garbage bytes (deleted cells, reclaimed by compaction)
//! 38..42 leaf: right sibling / internal: leftmost child     42..46 leaf: left sibling
//! 46     level (0 = leaf)    48..   slot array: u16 cell offsets, in key order
//! leaf cell:     key_len u16 | value_len u16 (0x8000 = overflow) | key | value
//! internal cell: key_len u16 | child u32 | key      (child holds keys >= key)
//! ```
//!
//! A value too large to keep 4 cells in a page goes to a chain of overflow pages (the cell
//! keeps total length and first page). Keys are limited to [`MAX_KEY_BYTES`]. Every cell is
//! at most a quarter of a page, so a split always yields two nodes that fit.
//!
//! Roots never move: when a root splits, its cells move to two new children and the root
//! becomes their parent, so the meta page need not change. Deletes remove the cell only;
//! nodes are not merged (an emptied leaf stays linked and scans step over it).
//!
//! Concurrency is the caller's: the table's latch keeps writers out while anyone reads.

use std::borrow::Cow;
use std::cmp::Ordering;

use crate::page::*;
use crate::types::StorageError;
use myriad_cache::{Block, Prefetch};
use std::sync::Arc;

type Result<T> = std::result::Result<T, StorageError>;

const N_CELLS: usize = 32;
const CELL_START: usize = 34;
const GARBAGE: usize = 36;
const NEXT_OR_LEFTMOST: usize = 38;
const PREV: usize = 42;
const LEVEL: usize = 46;
const SLOTS: usize = 48;
const USABLE: usize = PAGE_SIZE - SLOTS;
/// The largest cell (plus its slot): a quarter of the usable space, so splits always fit.
pub const MAX_CELL: usize = USABLE / 4;
/// The longest index key.
pub const MAX_KEY_BYTES: usize = 3000;
const OVERFLOW_FLAG: u16 = 0x8000;
const OVERFLOW_NEXT: usize = 32;
const OVERFLOW_LEN: usize = 36;
const OVERFLOW_DATA: usize = 38;
const OVERFLOW_CAPACITY: usize = PAGE_SIZE - OVERFLOW_DATA;

/// Read access to a table's pages.
/// A page as a read sees it: a block of the cache, or an older version of it (a
/// snapshot's view, see `snapshot`).
pub(crate) enum Page {
    Block(Block),
    /// Page number, content.
    Version(u32, Arc<[u8]>),
}

/// The bytes of a [`Page`].
pub(crate) enum PageBytes<'a> {
    Block(myriad_cache::BlockBytes<'a>),
    Version(&'a [u8]),
}

impl Page {
    pub(crate) fn read(&self) -> PageBytes<'_> {
        match self {
            Page::Block(b) => PageBytes::Block(b.read()),
            Page::Version(_, v) => PageBytes::Version(v),
        }
    }

    /// The page's number.
    pub(crate) fn block(&self) -> u64 {
        match self {
            Page::Block(b) => b.block(),
            Page::Version(no, _) => *no as u64,
        }
    }
}

impl std::ops::Deref for PageBytes<'_> {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            PageBytes::Block(b) => b,
            PageBytes::Version(v) => v,
        }
    }
}

pub(crate) trait PageRead {
    fn read(&self, page_no: u32) -> Result<Page>;
    /// A hint that `page_no` is read soon (see [`Prefetch`]).
    fn prefetch(&self, _page_no: u32, _step: Prefetch) {}
}

/// Write access inside a statement: `write` records the before-image and marks the block
/// write-pending; `allocate` returns a page with its header initialised.
pub(crate) trait PageWrite: PageRead {
    fn write(&mut self, page_no: u32) -> Result<Block>;
    fn allocate(&mut self, page_type: u8) -> Result<(u32, Block)>;
    fn free(&mut self, page_no: u32) -> Result<()>;
}

fn corrupt(page_no: u32, what: &str) -> StorageError {
    StorageError::Corrupt(format!("page {page_no}: {what}"))
}

/// Initialise a node's header (the common header is set by the allocator).
pub(crate) fn init_node(p: &mut [u8], ty: u8, level: u8) {
    p[OFF_TYPE] = ty;
    p[SLOTS..].fill(0);
    put_u16(p, N_CELLS, 0);
    put_u16(p, CELL_START, PAGE_SIZE as u16);
    put_u16(p, GARBAGE, 0);
    put_u32(p, NEXT_OR_LEFTMOST, 0);
    put_u32(p, PREV, 0);
    p[LEVEL] = level;
}

#[inline]
fn n_cells(p: &[u8]) -> usize {
    get_u16(p, N_CELLS) as usize
}
#[inline]
fn is_leaf(p: &[u8]) -> bool {
    page_type(p) == TYPE_LEAF
}
#[inline]
fn slot(p: &[u8], i: usize) -> usize {
    get_u16(p, SLOTS + 2 * i) as usize
}
/// Bytes before the key in a cell of this node: leaf cells hold key and value lengths,
/// internal cells the key length and the child.
#[inline]
fn key_offset(p: &[u8]) -> usize {
    if is_leaf(p) {
        LEAF_KEY_OFFSET
    } else {
        INTERNAL_KEY_OFFSET
    }
}
const LEAF_KEY_OFFSET: usize = 4;
const INTERNAL_KEY_OFFSET: usize = 6;
#[inline]
fn key_at(p: &[u8], i: usize) -> &[u8] {
    key_at_offset(p, i, key_offset(p))
}
/// `key_at` with the node's `key_offset` worked out once by the caller (binary searches).
#[inline]
fn key_at_offset(p: &[u8], i: usize, key_offset: usize) -> &[u8] {
    let off = slot(p, i);
    let klen = get_u16(p, off) as usize;
    let start = off + key_offset;
    &p[start..start + klen]
}
#[inline]
fn child_at(p: &[u8], i: usize) -> u32 {
    get_u32(p, slot(p, i) + 2)
}
fn leftmost(p: &[u8]) -> u32 {
    get_u32(p, NEXT_OR_LEFTMOST)
}
fn next_leaf(p: &[u8]) -> u32 {
    get_u32(p, NEXT_OR_LEFTMOST)
}
fn prev_leaf(p: &[u8]) -> u32 {
    get_u32(p, PREV)
}
/// (is overflow, raw value bytes) of leaf cell i.
fn raw_value_at(p: &[u8], i: usize) -> (bool, &[u8]) {
    let off = slot(p, i);
    let klen = get_u16(p, off) as usize;
    let vlen = get_u16(p, off + 2);
    let start = off + 4 + klen;
    let len = (vlen & !OVERFLOW_FLAG) as usize;
    (vlen & OVERFLOW_FLAG != 0, &p[start..start + len])
}
/// The value of leaf cell i: the page's own bytes, or a copy read from its overflow chain.
fn value_at<'p>(src: &impl PageRead, p: &'p [u8], i: usize) -> Result<Cow<'p, [u8]>> {
    match raw_value_at(p, i) {
        (true, pointer) => Ok(Cow::Owned(read_overflow(src, pointer)?)),
        (false, raw) => Ok(Cow::Borrowed(raw)),
    }
}
/// A copy of the overflow pointer of cell `i` of a leaf, if its value overflows.
fn overflow_pointer(p: &[u8], i: usize) -> Option<Vec<u8>> {
    let (overflow, raw) = raw_value_at(p, i);
    overflow.then(|| raw.to_vec())
}
fn cell_len(p: &[u8], i: usize) -> usize {
    let off = slot(p, i);
    let klen = get_u16(p, off) as usize;
    if is_leaf(p) {
        4 + klen + (get_u16(p, off + 2) & !OVERFLOW_FLAG) as usize
    } else {
        6 + klen
    }
}
fn cell_bytes(p: &[u8], i: usize) -> &[u8] {
    let off = slot(p, i);
    &p[off..off + cell_len(p, i)]
}

/// Byte order of two keys, as `a.cmp(b)`: the first eight bytes compared as one big-endian
/// word (row ids and most index keys are decided there) instead of a `memcmp` call.
#[inline]
fn compare_keys(a: &[u8], b: &[u8]) -> Ordering {
    match (a.first_chunk::<8>(), b.first_chunk::<8>()) {
        (Some(a8), Some(b8)) => match u64::from_be_bytes(*a8).cmp(&u64::from_be_bytes(*b8)) {
            Ordering::Equal if a.len() == 8 && b.len() == 8 => Ordering::Equal,
            Ordering::Equal => a[8..].cmp(&b[8..]),
            decided => decided,
        },
        _ => a.cmp(b),
    }
}

/// Ask the CPU to start loading the cell `i` (a binary search's next probe is one of two
/// cells: loading both while comparing this one overlaps their cache misses).
#[inline]
fn prefetch_cell(p: &[u8], i: usize) {
    prefetch_at(p, slot(p, i));
}

/// Ask the CPU to start loading byte `at` of `p`.
#[inline]
fn prefetch_at(p: &[u8], at: usize) {
    if let Some(byte) = p.get(at) {
        myriad_cache::prefetch(byte);
    }
}

/// The node header (cell count, type) and the first slots.
#[inline]
fn prefetch_header(p: &[u8]) {
    prefetch_at(p, N_CELLS);
}

/// Before probing `mid` of `lo..hi`: prefetch both cells the probe after it may look at.
#[inline]
fn prefetch_next_probes(p: &[u8], lo: usize, mid: usize, hi: usize) {
    if hi - lo > 8 {
        prefetch_cell(p, (lo + mid) / 2);
        prefetch_cell(p, (mid + 1 + hi) / 2);
    }
}

/// First cell whose key is >= `key`.
fn lower_bound(p: &[u8], key: &[u8]) -> usize {
    let (mut lo, mut hi, offset) = (0, n_cells(p), key_offset(p));
    while lo < hi {
        let mid = (lo + hi) / 2;
        prefetch_next_probes(p, lo, mid, hi);
        if compare_keys(key_at_offset(p, mid, offset), key) == Ordering::Less {
            lo = mid + 1
        } else {
            hi = mid
        }
    }
    lo
}
/// First cell whose key is > `key`.
fn upper_bound(p: &[u8], key: &[u8]) -> usize {
    let (mut lo, mut hi, offset) = (0, n_cells(p), key_offset(p));
    while lo < hi {
        let mid = (lo + hi) / 2;
        prefetch_next_probes(p, lo, mid, hi);
        if compare_keys(key_at_offset(p, mid, offset), key) != Ordering::Greater {
            lo = mid + 1
        } else {
            hi = mid
        }
    }
    lo
}
/// The child an `upper_bound` of `i` leads to.
fn child_below(p: &[u8], i: usize) -> u32 {
    match i {
        0 => leftmost(p),
        i => child_at(p, i - 1),
    }
}

fn leaf_cell(key: &[u8], value: &[u8], overflow: bool) -> Vec<u8> {
    let mut c = Vec::with_capacity(4 + key.len() + value.len());
    c.extend_from_slice(&(key.len() as u16).to_le_bytes());
    let vlen = value.len() as u16 | if overflow { OVERFLOW_FLAG } else { 0 };
    c.extend_from_slice(&vlen.to_le_bytes());
    c.extend_from_slice(key);
    c.extend_from_slice(value);
    c
}
fn internal_cell(key: &[u8], child: u32) -> Vec<u8> {
    let mut c = Vec::with_capacity(6 + key.len());
    c.extend_from_slice(&(key.len() as u16).to_le_bytes());
    c.extend_from_slice(&child.to_le_bytes());
    c.extend_from_slice(key);
    c
}
/// The key of a raw cell (leaf or internal).
fn raw_cell_key(cell: &[u8], leaf: bool) -> &[u8] {
    let klen = u16::from_le_bytes([cell[0], cell[1]]) as usize;
    let start = if leaf { 4 } else { 6 };
    &cell[start..start + klen]
}

/// Insert a cell at slot `i` if it fits (compacting first when fragmented).
fn try_insert_cell(p: &mut [u8], i: usize, cell: &[u8]) -> bool {
    let n = n_cells(p);
    let need = cell.len() + 2;
    let contiguous = get_u16(p, CELL_START) as usize - (SLOTS + 2 * n);
    if contiguous < need {
        if contiguous + get_u16(p, GARBAGE) as usize >= need {
            let cells: Vec<Vec<u8>> = (0..n).map(|j| cell_bytes(p, j).to_vec()).collect();
            rebuild(p, &cells);
        } else {
            return false;
        }
    }
    let start = get_u16(p, CELL_START) as usize - cell.len();
    p[start..start + cell.len()].copy_from_slice(cell);
    put_u16(p, CELL_START, start as u16);
    p.copy_within(SLOTS + 2 * i..SLOTS + 2 * n, SLOTS + 2 * i + 2);
    put_u16(p, SLOTS + 2 * i, start as u16);
    put_u16(p, N_CELLS, (n + 1) as u16);
    true
}

fn remove_cell(p: &mut [u8], i: usize) {
    let n = n_cells(p);
    let (off, len) = (slot(p, i), cell_len(p, i));
    // Zeroed so that full-page log images (which skip zero runs) stay small.
    p[off..off + len].fill(0);
    if off == get_u16(p, CELL_START) as usize {
        put_u16(p, CELL_START, (off + len) as u16);
    } else {
        put_u16(p, GARBAGE, get_u16(p, GARBAGE) + len as u16);
    }
    p.copy_within(SLOTS + 2 * (i + 1)..SLOTS + 2 * n, SLOTS + 2 * i);
    put_u16(p, SLOTS + 2 * (n - 1), 0);
    put_u16(p, N_CELLS, (n - 1) as u16);
}

/// Rewrite the cell area with `cells` in order (node header fields other than the cell
/// bookkeeping are kept).
fn rebuild(p: &mut [u8], cells: &[Vec<u8>]) {
    p[SLOTS..].fill(0);
    let mut end = PAGE_SIZE;
    for (i, c) in cells.iter().enumerate() {
        end -= c.len();
        p[end..end + c.len()].copy_from_slice(c);
        put_u16(p, SLOTS + 2 * i, end as u16);
    }
    put_u16(p, N_CELLS, cells.len() as u16);
    put_u16(p, CELL_START, end as u16);
    put_u16(p, GARBAGE, 0);
}

/// Make `p` a leaf or internal node at `level` holding `cells`, linked to its neighbours
/// `(next, prev)` if a leaf, or to its `leftmost` child if not.
fn build_node(
    p: &mut [u8],
    leaf: bool,
    level: u8,
    cells: &[Vec<u8>],
    neighbours: (u32, u32),
    leftmost: u32,
) {
    init_node(p, if leaf { TYPE_LEAF } else { TYPE_INTERNAL }, level);
    rebuild(p, cells);
    if leaf {
        put_u32(p, NEXT_OR_LEFTMOST, neighbours.0);
        put_u32(p, PREV, neighbours.1);
    } else {
        put_u32(p, NEXT_OR_LEFTMOST, leftmost);
    }
}

/// Where to split `cells`: the first index of the right half, balancing bytes.
fn split_point(cells: &[Vec<u8>]) -> usize {
    let total: usize = cells.iter().map(|c| c.len() + 2).sum();
    let mut acc = 0;
    for (i, c) in cells.iter().enumerate() {
        acc += c.len() + 2;
        if acc >= total / 2 {
            return (i + 1).clamp(1, cells.len() - 1);
        }
    }
    cells.len() / 2
}

fn check_node_type(p: &[u8], page_no: u32) -> Result<()> {
    match page_type(p) {
        TYPE_LEAF | TYPE_INTERNAL => Ok(()),
        t => Err(corrupt(
            page_no,
            &format!("expected a B+tree node, found page type {t}"),
        )),
    }
}

/// Descend from `root` to the leaf that holds `key`, recording the internal pages passed.
/// The leaf is not read on the way (its caller reads it next): check it with
/// [`expect_leaf`].
fn descend(src: &impl PageRead, root: u32, key: &[u8], path: Option<&mut Vec<u32>>) -> Result<u32> {
    let mut path = path;
    descend_by(src, root, key, |page_no, _, _| {
        if let Some(path) = path.as_deref_mut() {
            path.push(page_no);
        }
    })
}

/// Descend from `root` toward `key`, calling `internal(page number, node, child index)` at
/// every internal node passed (the child is `upper_bound`'s index: 0 the leftmost, i the
/// child of cell i - 1), and return the leaf. A node of level 1 names its child as the leaf
/// without it being read: the caller reads it next and checks it ([`expect_leaf`]).
fn descend_by(
    src: &impl PageRead,
    root: u32,
    key: &[u8],
    mut internal: impl FnMut(u32, &[u8], usize),
) -> Result<u32> {
    walk_down(src, root, |page_no, p| {
        let i = upper_bound(p, key);
        internal(page_no, p, i);
        let child = child_below(p, i);
        if p[LEVEL] == 1 {
            Down::Leaf(child)
        } else {
            Down::Node(child)
        }
    })
}

/// Where [`walk_down`] goes from an internal node.
enum Down {
    /// Read this child next.
    Node(u32),
    /// End at this child, a leaf, without reading it.
    Leaf(u32),
}

/// Walk down from `root`, reading and checking each node, until a leaf is read or
/// `down(page number, node)` names the leaf to end at; `down` picks the child at every
/// internal node. Returns the leaf's page number.
#[inline]
fn walk_down(
    src: &impl PageRead,
    root: u32,
    mut down: impl FnMut(u32, &[u8]) -> Down,
) -> Result<u32> {
    let mut page_no = root;
    for _ in 0..64 {
        let b = src.read(page_no)?;
        let p = b.read();
        check_node_type(&p, page_no)?;
        if is_leaf(&p) {
            return Ok(page_no);
        }
        match down(page_no, &p) {
            Down::Node(child) => page_no = child,
            Down::Leaf(leaf) => return Ok(leaf),
        }
    }
    Err(corrupt(root, "tree deeper than 64 levels (a cycle?)"))
}

/// Fail unless page `page_no`, named a leaf by its parent's level, is one.
fn expect_leaf(p: &[u8], page_no: u32) -> Result<()> {
    if is_leaf(p) {
        Ok(())
    } else {
        check_node_type(p, page_no)?;
        Err(corrupt(page_no, "a node of level 1 names a non-leaf child"))
    }
}

/// Where `key` stands, or would stand, in page `leaf` (`p`), failing unless it is a leaf;
/// and whether the key is there.
#[inline]
fn seek_in_leaf(p: &[u8], leaf: u32, key: &[u8]) -> Result<(usize, bool)> {
    expect_leaf(p, leaf)?;
    let pos = lower_bound(p, key);
    Ok((pos, pos < n_cells(p) && key_at(p, pos) == key))
}

/// Descend to the rightmost leaf.
fn descend_rightmost(src: &impl PageRead, root: u32) -> Result<u32> {
    walk_down(src, root, |_, p| {
        let n = n_cells(p);
        Down::Node(if n == 0 {
            leftmost(p)
        } else {
            child_at(p, n - 1)
        })
    })
}

/// Call `f` with the value stored under `key`, if any (no copy unless it overflows).
pub(crate) fn get_with<R>(
    src: &impl PageRead,
    root: u32,
    key: &[u8],
    f: impl FnOnce(&[u8]) -> Result<R>,
) -> Result<Option<R>> {
    let leaf = descend(src, root, key, None)?;
    let b = src.read(leaf)?;
    let p = b.read();
    let (i, found) = seek_in_leaf(&p, leaf, key)?;
    if !found {
        return Ok(None);
    }
    let (overflow, raw) = raw_value_at(&p, i);
    if overflow {
        let v = read_overflow(src, raw)?;
        drop(p);
        return f(&v).map(Some);
    }
    f(raw).map(Some)
}

/// Keys sought side by side at most: each pins its leaf until the batch is done.
const SEEK_BATCH: usize = 64;

/// The leaf a descent reached and the keys the tree routes to it: `low <= key < high`, as
/// far as the separators met on the way down tell (an unset bound is open).
#[derive(Default)]
struct Route {
    leaf: u32,
    low: Vec<u8>,
    high: Vec<u8>,
    has_low: bool,
    has_high: bool,
}

impl Route {
    fn holds(&self, key: &[u8]) -> bool {
        (!self.has_low || compare_keys(&self.low, key) != Ordering::Greater)
            && (!self.has_high || compare_keys(key, &self.high) == Ordering::Less)
    }

    /// Descend from `root` to the leaf for `key`, narrowing the bounds at every level. The
    /// leaf itself is not read: `seek_many` waits for all leaves at once.
    fn descend(&mut self, src: &impl PageRead, root: u32, key: &[u8]) -> Result<()> {
        (self.has_low, self.has_high) = (false, false);
        self.leaf = descend_by(src, root, key, |_, p, i| {
            if i > 0 {
                self.low.clear();
                self.low.extend_from_slice(key_at(p, i - 1));
                self.has_low = true;
            }
            if i < n_cells(p) {
                self.high.clear();
                self.high.extend_from_slice(key_at(p, i));
                self.has_high = true;
            }
        })?;
        Ok(())
    }
}

/// What [`seek_many`] found: the pinned leaves, and for each key (leaf index, position).
struct Sought {
    leaves: Vec<Page>,
    at: Vec<(usize, usize)>,
}

/// Where each of `keys` (at most [`SEEK_BATCH`]) lies: the pinned leaf the tree routes it to
/// (an index into the blocks returned; keys routed to one leaf share it) and its
/// `lower_bound` there. The upper levels are hot in the CPU cache, the leaves are not, and a
/// binary search over a cold 16 KB leaf waits on memory about ten times: so the leaves are
/// searched side by side, one probe of every key per round, each round prefetching what the
/// next one reads, and the waits of different keys overlap instead of queueing.
fn seek_many(src: &impl PageRead, root: u32, keys: &[&[u8]]) -> Result<Sought> {
    debug_assert!(keys.len() <= SEEK_BATCH);
    let mut leaf_pages: Vec<u32> = Vec::with_capacity(keys.len());
    let mut leaf_of: Vec<usize> = Vec::with_capacity(keys.len());
    let mut route = Route::default();
    for (i, key) in keys.iter().enumerate() {
        if i == 0 || !route.holds(key) {
            route.descend(src, root, key)?;
        }
        // Each leaf pinned and locked once, even when keys out of order come back to it.
        match leaf_pages.iter().rposition(|&p| p == route.leaf) {
            Some(l) => leaf_of.push(l),
            None => {
                leaf_of.push(leaf_pages.len());
                leaf_pages.push(route.leaf);
            }
        }
    }
    // The block cache lookups of the leaves overlap too.
    for step in [Prefetch::Index, Prefetch::Slot] {
        for &page_no in &leaf_pages {
            src.prefetch(page_no, step);
        }
    }
    let leaves = leaf_pages
        .iter()
        .map(|&page_no| src.read(page_no))
        .collect::<Result<Vec<Page>>>()?;
    let guards: Vec<_> = leaves.iter().map(|b| b.read()).collect();
    let pages: Vec<&[u8]> = guards.iter().map(|g| &**g).collect();
    for p in &pages {
        prefetch_header(p);
    }
    for (b, p) in leaves.iter().zip(&pages) {
        expect_leaf(p, b.block() as u32)?;
    }
    let mut lo = vec![0usize; keys.len()];
    let mut hi: Vec<usize> = leaf_of.iter().map(|&l| n_cells(pages[l])).collect();
    // A round compares every key at its probe and prefetches its next probe's cell (whose
    // slot an earlier round prefetched) and the slots of the two probes that may follow.
    let prefetch_slots_after = |p: &[u8], lo: usize, mid: usize, hi: usize| {
        prefetch_at(p, SLOTS + 2 * ((lo + mid) / 2));
        prefetch_at(p, SLOTS + 2 * ((mid + 1 + hi) / 2));
    };
    for (j, &l) in leaf_of.iter().enumerate() {
        let mid = (lo[j] + hi[j]) / 2;
        prefetch_at(pages[l], SLOTS + 2 * mid);
        prefetch_slots_after(pages[l], lo[j], mid, hi[j]);
    }
    for (j, &l) in leaf_of.iter().enumerate() {
        if lo[j] < hi[j] {
            prefetch_cell(pages[l], (lo[j] + hi[j]) / 2);
        }
    }
    let mut searching = true;
    while searching {
        searching = false;
        for (j, &l) in leaf_of.iter().enumerate() {
            if lo[j] >= hi[j] {
                continue;
            }
            let p = pages[l];
            let mid = (lo[j] + hi[j]) / 2;
            if compare_keys(key_at_offset(p, mid, LEAF_KEY_OFFSET), keys[j]) == Ordering::Less {
                lo[j] = mid + 1;
            } else {
                hi[j] = mid;
            }
            if lo[j] < hi[j] {
                searching = true;
                let next = (lo[j] + hi[j]) / 2;
                prefetch_cell(p, next);
                prefetch_slots_after(p, lo[j], next, hi[j]);
            }
        }
    }
    drop(pages);
    drop(guards);
    Ok(Sought {
        at: leaf_of.into_iter().zip(lo).collect(),
        leaves,
    })
}

/// Look up many keys, calling `f(index, value)` for each key found, in the order of `keys`.
/// The leaves are searched side by side (see [`seek_many`]); keys in sorted order that
/// fall in one leaf share its descent (an index range scan fetching rows whose ids follow
/// the index order, as with a primary key).
pub(crate) fn get_many_with(
    src: &impl PageRead,
    root: u32,
    keys: &[&[u8]],
    mut f: impl FnMut(usize, &[u8]) -> Result<()>,
) -> Result<()> {
    for (batch_no, batch) in keys.chunks(SEEK_BATCH).enumerate() {
        let Sought { leaves, at } = seek_many(src, root, batch)?;
        for (j, (key, &(leaf, pos))) in batch.iter().zip(&at).enumerate() {
            let p = leaves[leaf].read();
            if pos >= n_cells(&p) || key_at(&p, pos) != *key {
                continue;
            }
            let i = batch_no * SEEK_BATCH + j;
            let (overflow, raw) = raw_value_at(&p, pos);
            if overflow {
                let v = read_overflow(src, raw)?;
                drop(p);
                f(i, &v)?;
            } else {
                f(i, raw)?;
            }
        }
    }
    Ok(())
}

/// For each range `lower <= key < upper` in turn (no upper: to the end), call
/// `f(range index, key, value)` on its entries in key order; `Ok(false)` as soon as more
/// than `max` entries were visited in all. The ranges' first leaves are found side by side
/// (see [`seek_many`]).
pub(crate) fn scan_many(
    src: &impl PageRead,
    root: u32,
    ranges: &[(&[u8], Option<&[u8]>)],
    max: usize,
    mut f: impl FnMut(usize, &[u8], &[u8]) -> Result<()>,
) -> Result<bool> {
    let mut visited = 0usize;
    for (batch_no, batch) in ranges.chunks(SEEK_BATCH).enumerate() {
        let lowers: Vec<&[u8]> = batch.iter().map(|r| r.0).collect();
        let Sought { leaves, at } = seek_many(src, root, &lowers)?;
        for (j, (&(_, upper), &(leaf, start))) in batch.iter().zip(&at).enumerate() {
            let range = batch_no * SEEK_BATCH + j;
            let mut sibling: Option<Page> = None;
            let mut pos = start;
            loop {
                let b = sibling.as_ref().unwrap_or(&leaves[leaf]);
                let p = b.read();
                if !is_leaf(&p) {
                    return Err(corrupt(b.block() as u32, "leaf chain reaches a non-leaf"));
                }
                let n = n_cells(&p);
                while pos < n {
                    let key = key_at(&p, pos);
                    if upper.is_some_and(|u| key >= u) {
                        break;
                    }
                    visited += 1;
                    if visited > max {
                        return Ok(false);
                    }
                    f(range, key, &value_at(src, &p, pos)?)?;
                    pos += 1;
                }
                let next = next_leaf(&p);
                if pos < n || next == 0 {
                    break;
                }
                drop(p);
                sibling = Some(src.read(next)?);
                pos = 0;
            }
        }
    }
    Ok(true)
}

fn read_overflow(src: &impl PageRead, pointer: &[u8]) -> Result<Vec<u8>> {
    if pointer.len() != 8 {
        return Err(StorageError::Corrupt(
            "overflow pointer of the wrong size".into(),
        ));
    }
    let total = get_u32(pointer, 0) as usize;
    let mut page_no = get_u32(pointer, 4);
    let mut out = Vec::with_capacity(total);
    while out.len() < total {
        if page_no == 0 {
            return Err(StorageError::Corrupt("overflow chain ends early".into()));
        }
        let b = src.read(page_no)?;
        let p = b.read();
        if page_type(&p) != TYPE_OVERFLOW {
            return Err(corrupt(page_no, "expected an overflow page"));
        }
        let len = (get_u16(&p, OVERFLOW_LEN) as usize).min(OVERFLOW_CAPACITY);
        out.extend_from_slice(&p[OVERFLOW_DATA..OVERFLOW_DATA + len]);
        page_no = get_u32(&p, OVERFLOW_NEXT);
    }
    out.truncate(total);
    Ok(out)
}

fn write_overflow(w: &mut impl PageWrite, value: &[u8]) -> Result<Vec<u8>> {
    let mut next = 0u32;
    for chunk in value.chunks(OVERFLOW_CAPACITY).rev() {
        let (page_no, b) = w.allocate(TYPE_OVERFLOW)?;
        let mut p = b.write();
        put_u32(&mut p, OVERFLOW_NEXT, next);
        put_u16(&mut p, OVERFLOW_LEN, chunk.len() as u16);
        p[OVERFLOW_DATA..OVERFLOW_DATA + chunk.len()].copy_from_slice(chunk);
        next = page_no;
    }
    let mut pointer = Vec::with_capacity(8);
    pointer.extend_from_slice(&(value.len() as u32).to_le_bytes());
    pointer.extend_from_slice(&next.to_le_bytes());
    Ok(pointer)
}

fn free_overflow(w: &mut impl PageWrite, pointer: &[u8]) -> Result<()> {
    let mut page_no = get_u32(pointer, 4);
    let mut budget = get_u32(pointer, 0) as usize / OVERFLOW_CAPACITY + 1;
    while page_no != 0 && budget > 0 {
        budget -= 1;
        let next = {
            let b = w.read(page_no)?;
            let p = b.read();
            get_u32(&p, OVERFLOW_NEXT)
        };
        w.free(page_no)?;
        page_no = next;
    }
    Ok(())
}

/// What an insert did.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Inserted {
    New,
    Replaced,
    /// The key exists and `replace` was false; nothing changed.
    Duplicate,
}

/// Insert `key` -> `value`, or replace the value when `replace` is set.
pub(crate) fn insert(
    w: &mut impl PageWrite,
    root: u32,
    key: &[u8],
    value: &[u8],
    replace: bool,
) -> Result<Inserted> {
    if key.is_empty() || key.len() > MAX_KEY_BYTES {
        return Err(StorageError::TooBig(format!(
            "Specified key was too long; max key length is {MAX_KEY_BYTES} bytes"
        )));
    }
    let mut path = Vec::new();
    let leaf = descend(w, root, key, Some(&mut path))?;
    let (pos, exists, old_overflow) = {
        let b = w.read(leaf)?;
        let p = b.read();
        let (pos, exists) = seek_in_leaf(&p, leaf, key)?;
        let old = if exists {
            overflow_pointer(&p, pos)
        } else {
            None
        };
        (pos, exists, old)
    };
    if exists && !replace {
        return Ok(Inserted::Duplicate);
    }
    let cell = if 4 + key.len() + value.len() + 2 <= MAX_CELL {
        leaf_cell(key, value, false)
    } else {
        let pointer = write_overflow(w, value)?;
        leaf_cell(key, &pointer, true)
    };
    if let Some(pointer) = old_overflow {
        free_overflow(w, &pointer)?;
    }
    let b = w.write(leaf)?;
    let mut p = b.write();
    if exists {
        remove_cell(&mut p, pos);
    }
    if try_insert_cell(&mut p, pos, &cell) {
        return Ok(if exists {
            Inserted::Replaced
        } else {
            Inserted::New
        });
    }
    let mut cells: Vec<Vec<u8>> = (0..n_cells(&p))
        .map(|j| cell_bytes(&p, j).to_vec())
        .collect();
    drop(p);
    cells.insert(pos, cell);
    split(w, root, leaf, path, cells, true)?;
    Ok(if exists {
        Inserted::Replaced
    } else {
        Inserted::New
    })
}

/// Split node `page_no` whose content would be `cells`, pushing a separator up `path`.
fn split(
    w: &mut impl PageWrite,
    root: u32,
    page_no: u32,
    mut path: Vec<u32>,
    cells: Vec<Vec<u8>>,
    leaf: bool,
) -> Result<()> {
    let m = split_point(&cells);
    let node_type = if leaf { TYPE_LEAF } else { TYPE_INTERNAL };
    let b = w.write(page_no)?;
    let level = b.read()[LEVEL];
    // For internal nodes the middle cell moves up: its key is the separator and its child
    // becomes the right node's leftmost child.
    let (sep, right_cells, right_leftmost) = if leaf {
        (raw_cell_key(&cells[m], true).to_vec(), &cells[m..], 0)
    } else {
        let mid = &cells[m];
        (
            raw_cell_key(mid, false).to_vec(),
            &cells[m + 1..],
            u32::from_le_bytes([mid[2], mid[3], mid[4], mid[5]]),
        )
    };
    if page_no == root {
        let old_leftmost = leftmost(&b.read());
        let (left_no, lb) = w.allocate(node_type)?;
        let (right_no, rb) = w.allocate(node_type)?;
        let (left, right) = (&cells[..m], right_cells);
        build_node(
            &mut lb.write(),
            leaf,
            level,
            left,
            (right_no, 0),
            old_leftmost,
        );
        build_node(
            &mut rb.write(),
            leaf,
            level,
            right,
            (0, left_no),
            right_leftmost,
        );
        let mut p = b.write();
        init_node(&mut p, TYPE_INTERNAL, level + 1);
        put_u32(&mut p, NEXT_OR_LEFTMOST, left_no);
        if !try_insert_cell(&mut p, 0, &internal_cell(&sep, right_no)) {
            return Err(corrupt(root, "separator does not fit an empty root"));
        }
        return Ok(());
    }
    let (right_no, rb) = w.allocate(node_type)?;
    let old_next = {
        let mut p = b.write();
        let old_next = next_leaf(&p);
        rebuild(&mut p, &cells[..m]);
        if leaf {
            put_u32(&mut p, NEXT_OR_LEFTMOST, right_no);
        }
        old_next
    };
    let neighbours = (old_next, page_no);
    build_node(
        &mut rb.write(),
        leaf,
        level,
        right_cells,
        neighbours,
        right_leftmost,
    );
    if leaf && old_next != 0 {
        let nb = w.write(old_next)?;
        put_u32(&mut nb.write(), PREV, right_no);
    }
    let parent = path
        .pop()
        .ok_or_else(|| corrupt(page_no, "non-root node without a parent"))?;
    let cell = internal_cell(&sep, right_no);
    let pb = w.write(parent)?;
    let mut p = pb.write();
    let pos = upper_bound(&p, &sep);
    if try_insert_cell(&mut p, pos, &cell) {
        return Ok(());
    }
    let mut parent_cells: Vec<Vec<u8>> = (0..n_cells(&p))
        .map(|j| cell_bytes(&p, j).to_vec())
        .collect();
    drop(p);
    parent_cells.insert(pos, cell);
    split(w, root, parent, path, parent_cells, false)
}

/// Delete `key`; returns whether it was present.
pub(crate) fn delete(w: &mut impl PageWrite, root: u32, key: &[u8]) -> Result<bool> {
    let mut path = Vec::new();
    let leaf = descend(w, root, key, Some(&mut path))?;
    let (pos, overflow) = {
        let b = w.read(leaf)?;
        let p = b.read();
        let (pos, found) = seek_in_leaf(&p, leaf, key)?;
        if !found {
            return Ok(false);
        }
        (pos, overflow_pointer(&p, pos))
    };
    if let Some(pointer) = overflow {
        free_overflow(w, &pointer)?;
    }
    let b = w.write(leaf)?;
    let emptied = {
        let mut p = b.write();
        remove_cell(&mut p, pos);
        n_cells(&p) == 0
    };
    if emptied && leaf != root {
        // An empty leaf leaves the tree: unlink it from its siblings, drop its parent's
        // pointer to it, and free the page (so deleted space is reused, and scans do not
        // walk over empty leaves).
        let (prev, next) = {
            let p = b.read();
            (prev_leaf(&p), next_leaf(&p))
        };
        if prev != 0 {
            put_u32(&mut w.write(prev)?.write(), NEXT_OR_LEFTMOST, next);
        }
        if next != 0 {
            put_u32(&mut w.write(next)?.write(), PREV, prev);
        }
        remove_child(w, root, path, leaf, key)?;
    }
    Ok(true)
}

/// Remove the pointer to the empty node `child` (reached by descending for `key` along
/// `path`) from its parent and free it; a parent left without children goes the same way,
/// and a root left without children becomes an empty leaf.
fn remove_child(
    w: &mut impl PageWrite,
    root: u32,
    mut path: Vec<u32>,
    child: u32,
    key: &[u8],
) -> Result<()> {
    let parent = path
        .pop()
        .ok_or_else(|| corrupt(child, "non-root node without a parent"))?;
    let b = w.write(parent)?;
    let parent_empty = {
        let mut p = b.write();
        let n = n_cells(&p);
        let idx = upper_bound(&p, key);
        let found = if idx == 0 {
            leftmost(&p)
        } else {
            child_at(&p, idx - 1)
        };
        if found != child {
            return Err(corrupt(
                parent,
                &format!("descent for a key reaches {found}, not {child}"),
            ));
        }
        match idx {
            0 if n > 0 => {
                // The leftmost child goes: the first cell's child becomes the leftmost.
                let first = child_at(&p, 0);
                put_u32(&mut p, NEXT_OR_LEFTMOST, first);
                remove_cell(&mut p, 0);
                false
            }
            0 => true,
            i => {
                remove_cell(&mut p, i - 1);
                false
            }
        }
    };
    w.free(child)?;
    if parent_empty {
        if parent == root {
            init_node(&mut b.write(), TYPE_LEAF, 0);
        } else {
            remove_child(w, root, path, parent, key)?;
        }
    }
    Ok(())
}

/// The direction argument of [`scan`]: ascending key order.
pub(crate) const FORWARD: bool = true;
/// The direction argument of [`scan`]: descending key order.
pub(crate) const BACKWARD: bool = false;

/// Visit entries with `lower <= key < upper` leaf by leaf, until at least `max` were
/// visited (whole leaves are taken), calling `f(key, value)` on the page's own bytes (no
/// copy unless the value overflows): in key order starting at `lower` ([`FORWARD`]), or in
/// descending order starting below `upper` ([`BACKWARD`]). Returns whether the range is
/// exhausted and the last key visited (where to resume): the largest forward, the smallest
/// backward. The direction is a constant, so each direction compiles to its own loop with
/// no test of it per entry.
pub(crate) fn scan<const FORWARD: bool>(
    src: &impl PageRead,
    root: u32,
    lower: Option<&[u8]>,
    upper: Option<&[u8]>,
    max: usize,
    mut f: impl FnMut(&[u8], &[u8]) -> Result<()>,
) -> Result<(bool, Option<Vec<u8>>)> {
    let mut page_no = match (FORWARD, upper) {
        (true, _) => descend(src, root, lower.unwrap_or(&[]), None)?,
        (false, Some(u)) => descend(src, root, u, None)?,
        (false, None) => descend_rightmost(src, root)?,
    };
    let mut first = true;
    let mut visited = 0usize;
    let mut last: Option<Vec<u8>> = None;
    while page_no != 0 {
        let b = src.read(page_no)?;
        let p = b.read();
        if !is_leaf(&p) {
            return Err(corrupt(page_no, "leaf chain reaches a non-leaf"));
        }
        // The cells `from..to` of this leaf, taken from `from` up or from `to` down; only
        // the first leaf is cut at the near bound, the far one is tested per key.
        let n = n_cells(&p);
        let (from, to) = match (first, FORWARD, lower, upper) {
            (true, true, Some(l), _) => (lower_bound(&p, l), n),
            (true, false, _, Some(u)) => (0, lower_bound(&p, u)),
            _ => (0, n),
        };
        first = false;
        for step in 0..to - from {
            let i = if FORWARD { from + step } else { to - 1 - step };
            let key = key_at(&p, i);
            let beyond = if FORWARD {
                upper.is_some_and(|u| key >= u)
            } else {
                lower.is_some_and(|l| key < l)
            };
            if beyond {
                return Ok((true, last));
            }
            f(key, &value_at(src, &p, i)?)?;
            visited += 1;
            if (FORWARD && i + 1 == n) || (!FORWARD && i == 0) {
                last = Some(key.to_vec());
            }
        }
        page_no = if FORWARD {
            next_leaf(&p)
        } else {
            prev_leaf(&p)
        };
        if visited >= max && page_no != 0 {
            return Ok((false, last));
        }
    }
    Ok((true, last))
}

/// What [`check_tree`] found.
#[derive(Debug, Default)]
pub(crate) struct TreeCheck {
    pub entries: u64,
    pub pages: u64,
    pub problems: Vec<String>,
}

/// Verify the B+tree invariants: keys ordered within each node and within the bounds its
/// parent gives, all leaves at level 0 and at the same depth, levels decreasing by one,
/// the leaf chain linking the leaves in key order in both directions.
pub(crate) fn check_tree(src: &impl PageRead, root: u32) -> Result<TreeCheck> {
    let mut report = TreeCheck::default();
    let mut leaves = Vec::new();
    // (page, lower bound, upper bound, expected level)
    type Pending = (u32, Option<Vec<u8>>, Option<Vec<u8>>, Option<u8>);
    let mut stack: Vec<Pending> = vec![(root, None, None, None)];
    let mut visited = 0u64;
    while let Some((page_no, lo, hi, expected_level)) = stack.pop() {
        visited += 1;
        if visited > 1 << 32 {
            report
                .problems
                .push("tree walk does not terminate (a cycle?)".into());
            break;
        }
        report.pages += 1;
        let b = src.read(page_no)?;
        let p = b.read();
        if let Err(e) = check_node_type(&p, page_no) {
            report.problems.push(e.to_string());
            continue;
        }
        let level = p[LEVEL];
        if expected_level.is_some_and(|l| l != level) || (is_leaf(&p) != (level == 0)) {
            report.problems.push(format!(
                "page {page_no}: level {level}, expected {expected_level:?}"
            ));
        }
        let n = n_cells(&p);
        if SLOTS + 2 * n > get_u16(&p, CELL_START) as usize {
            report
                .problems
                .push(format!("page {page_no}: slot array overlaps the cell area"));
            continue;
        }
        for i in 0..n {
            let k = key_at(&p, i);
            if i > 0 && key_at(&p, i - 1) >= k {
                report
                    .problems
                    .push(format!("page {page_no}: keys out of order at slot {i}"));
            }
            if lo.as_deref().is_some_and(|lo| k < lo) || hi.as_deref().is_some_and(|hi| k >= hi) {
                report.problems.push(format!(
                    "page {page_no}: key at slot {i} outside the parent's bounds"
                ));
            }
        }
        if is_leaf(&p) {
            report.entries += n as u64;
            leaves.push((page_no, prev_leaf(&p), next_leaf(&p)));
            continue;
        }
        // Children pushed right to left so leaves are met in key order.
        for i in (0..=n).rev() {
            let child = if i == 0 {
                leftmost(&p)
            } else {
                child_at(&p, i - 1)
            };
            let clo = if i == 0 {
                lo.clone()
            } else {
                Some(key_at(&p, i - 1).to_vec())
            };
            let chi = if i == n {
                hi.clone()
            } else {
                Some(key_at(&p, i).to_vec())
            };
            stack.push((child, clo, chi, Some(level.saturating_sub(1))));
        }
    }
    for (i, &(page_no, prev, next)) in leaves.iter().enumerate() {
        let want_prev = if i == 0 { 0 } else { leaves[i - 1].0 };
        let want_next = leaves.get(i + 1).map_or(0, |l| l.0);
        if prev != want_prev || next != want_next {
            report.problems.push(format!(
                "leaf {page_no}: siblings ({prev}, {next}), expected ({want_prev}, {want_next})"
            ));
        }
    }
    Ok(report)
}

/// Overflow pages reachable from the leaves (for the free-space accounting of CHECK).
#[cfg(test)]
pub(crate) fn cell_limit_for_tests() -> usize {
    MAX_CELL
}

#[cfg(test)]
mod tests {
    use super::*;
    use myriad_cache::{BlockCache, BlockIo, FileId};
    use proptest::prelude::*;

    /// One key and value copied out of a leaf.
    type Entry = (Vec<u8>, Vec<u8>);
    use std::collections::BTreeMap;
    use std::io;
    use std::sync::Arc;

    /// A memory-only pager: pages live in a block cache over a "disk" that is never read.
    struct MemPager {
        cache: BlockCache,
        next_page: u32,
        free: Vec<u32>,
    }

    struct NoDisk;
    impl BlockIo for NoDisk {
        fn read_block(&self, _: FileId, b: u64, _: &mut [u8]) -> io::Result<()> {
            Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!("block {b} not in memory"),
            ))
        }
        fn write_block(&self, _: FileId, _: u64, _: &[u8]) -> io::Result<()> {
            Ok(())
        }
        fn flush_log(&self, _: u64) -> io::Result<()> {
            Ok(())
        }
    }

    impl PageRead for MemPager {
        fn read(&self, page_no: u32) -> Result<Page> {
            Ok(Page::Block(self.cache.get(7, page_no as u64)?))
        }
    }
    impl PageWrite for MemPager {
        fn write(&mut self, page_no: u32) -> Result<Block> {
            let b = self.cache.get(7, page_no as u64)?;
            b.begin_write();
            b.end_write(); // no statement here: nothing to hold back
            b.begin_write();
            Ok(b)
        }
        fn allocate(&mut self, ty: u8) -> Result<(u32, Block)> {
            let page_no = self.free.pop().unwrap_or_else(|| {
                self.next_page += 1;
                self.next_page
            });
            let b = self.cache.create(7, page_no as u64)?;
            b.begin_write();
            init_header(&mut b.write(), 7, page_no, ty);
            Ok((page_no, b))
        }
        fn free(&mut self, page_no: u32) -> Result<()> {
            self.free.push(page_no);
            Ok(())
        }
    }

    fn new_tree() -> (MemPager, u32) {
        // Capacity large enough that nothing is evicted (the "disk" keeps nothing).
        let mut pager = MemPager {
            cache: BlockCache::new(1 << 30, PAGE_SIZE, Arc::new(NoDisk)),
            next_page: 2,
            free: vec![],
        };
        let (root, b) = pager.allocate(TYPE_LEAF).unwrap();
        init_node(&mut b.write(), TYPE_LEAF, 0);
        (pager, root)
    }

    #[derive(Debug, Clone)]
    enum Op {
        Insert(Vec<u8>, usize),
        Delete(Vec<u8>),
        Range(Vec<u8>, Vec<u8>, bool),
        GetMany(Vec<Vec<u8>>, bool),
        ScanMany(Vec<(Vec<u8>, Option<Vec<u8>>)>, usize),
    }

    fn key_strategy() -> impl Strategy<Value = Vec<u8>> {
        // Short keys collide often; long ones force splits at several levels.
        prop_oneof![
            proptest::collection::vec(0u8..4, 1..4),
            proptest::collection::vec(any::<u8>(), 1..300),
            (0u32..5000).prop_map(|k| k.to_be_bytes().to_vec()),
        ]
    }

    fn op_strategy() -> impl Strategy<Value = Op> {
        prop_oneof![
            6 => (key_strategy(), prop_oneof![0usize..40, 0usize..3000, 5000usize..20000]).prop_map(|(k, v)| Op::Insert(k, v)),
            2 => key_strategy().prop_map(Op::Delete),
            1 => (key_strategy(), key_strategy(), any::<bool>()).prop_map(|(a, b, r)| Op::Range(a, b, r)),
            // More keys than one seek batch, sorted (shared leaves) or not.
            1 => (proptest::collection::vec(key_strategy(), 0..150), any::<bool>()).prop_map(|(k, s)| Op::GetMany(k, s)),
            1 => (proptest::collection::vec((key_strategy(), proptest::option::weighted(0.9, key_strategy())), 0..80), 0usize..400)
                .prop_map(|(r, max)| Op::ScanMany(r, max)),
        ]
    }

    fn value_of(k: &[u8], len: usize) -> Vec<u8> {
        (0..len)
            .map(|i| k.first().copied().unwrap_or(0).wrapping_add(i as u8))
            .collect()
    }

    fn collect_all(
        pager: &MemPager,
        root: u32,
        lo: Option<&[u8]>,
        hi: Option<&[u8]>,
        backward: bool,
    ) -> Vec<Entry> {
        let mut out = Vec::new();
        // Small batches exercise the resume path.
        let (mut lo, mut hi) = (lo.map(|v| v.to_vec()), hi.map(|v| v.to_vec()));
        loop {
            let mut batch = Vec::new();
            let mut copy = |k: &[u8], v: &[u8]| -> Result<()> {
                batch.push((k.to_vec(), v.to_vec()));
                Ok(())
            };
            let (done, _) = if backward {
                scan::<BACKWARD>(pager, root, lo.as_deref(), hi.as_deref(), 3, &mut copy)
            } else {
                scan::<FORWARD>(pager, root, lo.as_deref(), hi.as_deref(), 3, &mut copy)
            }
            .unwrap();
            if let Some((k, _)) = batch.last() {
                if backward {
                    hi = Some(k.clone());
                } else {
                    let mut next = k.clone();
                    next.push(0);
                    lo = Some(next);
                }
            }
            out.extend(batch);
            if done {
                return out;
            }
        }
    }

    /// Keys over a three-byte alphabet, so that pairs often share their first eight bytes.
    fn prefix_sharing_key() -> impl Strategy<Value = Vec<u8>> {
        proptest::collection::vec(prop_oneof![Just(0u8), Just(1u8), Just(255u8)], 0..20)
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]
        #[test]
        fn compare_keys_orders_as_bytes(a in prefix_sharing_key(), b in prefix_sharing_key()) {
            prop_assert_eq!(compare_keys(&a, &b), a.cmp(&b));
            prop_assert_eq!(compare_keys(&a, &a), Ordering::Equal);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]
        #[test]
        fn btree_matches_btreemap(ops in proptest::collection::vec(op_strategy(), 1..700)) {
            let (mut pager, root) = new_tree();
            let mut model: BTreeMap<Vec<u8>, Vec<u8>> = BTreeMap::new();
            for op in ops {
                match op {
                    Op::Insert(k, len) => {
                        let v = value_of(&k, len);
                        let replace = len % 2 == 0;
                        let r = insert(&mut pager, root, &k, &v, replace).unwrap();
                        let existed = model.contains_key(&k);
                        match (existed, replace) {
                            (false, _) => { prop_assert_eq!(r, Inserted::New); model.insert(k, v); }
                            (true, true) => { prop_assert_eq!(r, Inserted::Replaced); model.insert(k, v); }
                            (true, false) => prop_assert_eq!(r, Inserted::Duplicate),
                        }
                    }
                    Op::Delete(k) => {
                        prop_assert_eq!(delete(&mut pager, root, &k).unwrap(), model.remove(&k).is_some());
                    }
                    Op::Range(a, b, backward) => {
                        let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
                        let got = collect_all(&pager, root, Some(&lo), Some(&hi), backward);
                        let mut want: Vec<Entry> = model.range(lo..hi).map(|(k, v)| (k.clone(), v.clone())).collect();
                        if backward { want.reverse(); }
                        prop_assert_eq!(got, want);
                    }
                    Op::GetMany(mut keys, sorted) => {
                        if sorted { keys.sort(); }
                        let refs: Vec<&[u8]> = keys.iter().map(|k| k.as_slice()).collect();
                        let mut got = Vec::new();
                        get_many_with(&pager, root, &refs, |i, v| { got.push((i, v.to_vec())); Ok(()) }).unwrap();
                        let want: Vec<(usize, Vec<u8>)> = keys.iter().enumerate()
                            .filter_map(|(i, k)| model.get(k).map(|v| (i, v.clone()))).collect();
                        prop_assert_eq!(got, want);
                    }
                    Op::ScanMany(ranges, max) => {
                        let ranges: Vec<(Vec<u8>, Option<Vec<u8>>)> = ranges.into_iter()
                            .map(|(a, b)| match b { Some(b) if b < a => (b, Some(a)), b => (a, b) }).collect();
                        let refs: Vec<(&[u8], Option<&[u8]>)> = ranges.iter().map(|(a, b)| (a.as_slice(), b.as_deref())).collect();
                        let mut got = Vec::new();
                        let complete = scan_many(&pager, root, &refs, max, |r, k, v| { got.push((r, k.to_vec(), v.to_vec())); Ok(()) }).unwrap();
                        let want: Vec<(usize, Vec<u8>, Vec<u8>)> = ranges.iter().enumerate().flat_map(|(r, (a, b))| {
                            let upper = match b { Some(b) => std::ops::Bound::Excluded(b.clone()), None => std::ops::Bound::Unbounded };
                            model.range((std::ops::Bound::Included(a.clone()), upper)).map(move |(k, v)| (r, k.clone(), v.clone()))
                        }).collect();
                        prop_assert_eq!(complete, want.len() <= max);
                        prop_assert_eq!(&got[..], &want[..want.len().min(max)]);
                    }
                }
            }
            for (k, v) in &model {
                let got = get_with(&pager, root, k, |b| Ok(b.to_vec())).unwrap();
                prop_assert_eq!(got.as_ref(), Some(v));
            }
            let all = collect_all(&pager, root, None, None, false);
            prop_assert_eq!(all.len(), model.len());
            let back = collect_all(&pager, root, None, None, true);
            prop_assert_eq!(back.len(), model.len());
            let check = check_tree(&pager, root).unwrap();
            prop_assert!(check.problems.is_empty(), "{:?}", check.problems);
            prop_assert_eq!(check.entries, model.len() as u64);
        }
    }

    #[test]
    fn deleting_everything_frees_the_pages_for_reuse() {
        let (mut pager, root) = new_tree();
        let keys: Vec<[u8; 4]> = (0..20000u32)
            .map(|i| i.wrapping_mul(2654435761).to_be_bytes())
            .collect();
        for k in &keys {
            insert(&mut pager, root, k, &[7u8; 100], false).unwrap();
        }
        let pages_used = pager.next_page;
        // Delete in another order, checking the tree as it shrinks.
        for (n, k) in keys.iter().rev().enumerate() {
            assert!(delete(&mut pager, root, k).unwrap());
            if n % 5000 == 0 {
                let check = check_tree(&pager, root).unwrap();
                assert!(check.problems.is_empty(), "{:?}", check.problems);
                assert_eq!(check.entries, (keys.len() - n - 1) as u64);
            }
        }
        let check = check_tree(&pager, root).unwrap();
        assert!(
            check.problems.is_empty() && check.entries == 0 && check.pages == 1,
            "{check:?}"
        );
        assert!(
            pager.free.len() as u32 + 2 >= pages_used - 2,
            "pages of emptied nodes were not freed"
        );
        for k in &keys {
            insert(&mut pager, root, k, &[8u8; 100], false).unwrap();
        }
        assert_eq!(
            pager.next_page, pages_used,
            "a rebuilt tree of the same size needed new pages"
        );
        assert!(check_tree(&pager, root).unwrap().problems.is_empty());
    }

    #[test]
    fn many_sequential_and_random_keys_build_a_deep_valid_tree() {
        let (mut pager, root) = new_tree();
        for i in 0..20000u32 {
            let k = (i.wrapping_mul(2654435761)).to_be_bytes();
            assert_eq!(
                insert(&mut pager, root, &k, &[1u8; 200], false).unwrap(),
                Inserted::New
            );
        }
        let check = check_tree(&pager, root).unwrap();
        assert!(check.problems.is_empty(), "{:?}", check.problems);
        assert_eq!(check.entries, 20000);
        assert!(check.pages > 100);
        assert!(insert(&mut pager, root, &vec![1u8; MAX_KEY_BYTES + 1], b"", false).is_err());
        assert!(cell_limit_for_tests() < PAGE_SIZE / 3);
    }

    /// A descent does not read the leaf a level-1 node names: the lookup, insert and delete
    /// that read it next must refuse a page that is not one, never search it as a leaf.
    #[test]
    fn a_level_1_node_naming_a_non_leaf_is_corruption_for_every_reader() {
        let (mut pager, root) = new_tree();
        for i in 0..2000u32 {
            insert(&mut pager, root, &i.to_be_bytes(), &[7u8; 100], false).unwrap();
        }
        let key = 1234u32.to_be_bytes();
        let leaf = {
            let b = pager.read(root).unwrap();
            let p = b.read();
            assert_eq!(p[LEVEL], 1, "a two-level tree");
            child_below(&p, upper_bound(&p, &key))
        };
        assert!(get_with(&pager, root, &key, |v| Ok(v.to_vec()))
            .unwrap()
            .is_some());
        pager.write(leaf).unwrap().write()[OFF_TYPE] = TYPE_INTERNAL;
        let is_corrupt = |e: crate::StorageError| e.to_string().contains("non-leaf");
        assert!(is_corrupt(
            get_with(&pager, root, &key, |v| Ok(v.to_vec())).unwrap_err()
        ));
        assert!(is_corrupt(
            insert(&mut pager, root, &key, b"x", true).unwrap_err()
        ));
        assert!(is_corrupt(delete(&mut pager, root, &key).unwrap_err()));
        let other = 5u32.to_be_bytes();
        assert!(get_with(&pager, root, &other, |v| Ok(v.to_vec()))
            .unwrap()
            .is_some());
    }
}
