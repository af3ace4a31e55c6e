//! Columns: shared values plus an optional row selection, and what pandas infers for them.

use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

use crate::cell::Cell;
use crate::dtype::Dtype;
use crate::pandas::Pandas;

/// Which kinds of Python values a sequence holds, which is all pandas' list inference and
/// numpy's array conversion look at.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Kinds {
    pub(crate) none: bool,
    pub(crate) bool: bool,
    pub(crate) int: bool,
    pub(crate) negative: bool,
    pub(crate) uint: bool,
    pub(crate) float: bool,
    pub(crate) nan: bool,
    /// A NaN other than numpy's `nan` object (which pandas 3's `str` columns hold already).
    pub(crate) foreign_nan: bool,
    /// A float that is not NaN.
    pub(crate) real: bool,
    /// `str` or `bytes`.
    pub(crate) text: bool,
    pub(crate) bytes: bool,
}

impl Kinds {
    pub(crate) fn of<'a>(cells: impl IntoIterator<Item = &'a Cell>) -> Kinds {
        let mut k = Kinds::default();
        for cell in cells {
            match cell {
                Cell::None => k.none = true,
                Cell::Bool(_) => k.bool = true,
                Cell::Int(i) => {
                    k.int = true;
                    k.negative |= *i < 0;
                }
                Cell::UInt(_) => k.uint = true,
                Cell::Float(x) => {
                    k.float = true;
                    k.nan |= x.is_nan();
                    k.foreign_nan |= x.is_nan() && !crate::cell::is_np_nan(*x);
                    k.real |= !x.is_nan();
                }
                Cell::Str(_) => k.text = true,
                Cell::Bytes(_) => {
                    k.text = true;
                    k.bytes = true;
                }
            }
        }
        k
    }

    fn numbers(self) -> bool {
        self.int || self.uint || self.float
    }

    /// Whether pandas 3 makes a `str` column of these kinds: strings, with missing values
    /// (`None`, NaN) at most.
    pub(crate) fn strings(self) -> bool {
        self.text && !self.bytes && !self.bool && !self.int && !self.uint && !self.real
    }

    /// The dtype `pd.DataFrame` gives a non-empty list with these kinds, and whether storing
    /// the values in it changes them (ints or `None` next to floats become floats; under
    /// pandas 3, `None` and NaN among strings become `np.nan`).
    pub(crate) fn frame_dtype(self, pandas: Pandas) -> (Dtype, bool) {
        if pandas == Pandas::V3 && self.strings() {
            return (Dtype::Str, self.none || self.foreign_nan);
        }
        if self.text {
            return (Dtype::Object, false);
        }
        if self.bool {
            let only_bools = !self.numbers() && !self.none;
            return (
                if only_bools {
                    Dtype::Bool
                } else {
                    Dtype::Object
                },
                false,
            );
        }
        if !self.numbers() {
            return (Dtype::Object, false);
        }
        if self.float || self.none {
            return (Dtype::Float64, self.int || self.uint || self.none);
        }
        if self.uint {
            return (
                if self.negative {
                    Dtype::Object
                } else {
                    Dtype::UInt64
                },
                false,
            );
        }
        (Dtype::Int64, false)
    }

    /// The dtype every non-empty subset of values with these kinds gets, when it does not
    /// depend on the subset.
    fn frame_dtype_of_any_subset(self, pandas: Pandas) -> Option<Dtype> {
        if pandas == Pandas::V3 && self.strings() {
            // A subset of only missing values is not a string column.
            return (!self.none && !self.nan).then_some(Dtype::Str);
        }
        let only = |k: Kinds| {
            self == Kinds {
                negative: self.negative,
                nan: self.nan,
                foreign_nan: self.foreign_nan,
                real: self.real,
                ..k
            }
        };
        if only(Kinds {
            int: true,
            ..Kinds::default()
        }) {
            Some(Dtype::Int64)
        } else if only(Kinds {
            float: true,
            ..Kinds::default()
        }) {
            Some(Dtype::Float64)
        } else if !self.numbers() && !self.bool {
            Some(Dtype::Object)
        } else {
            None
        }
    }
}

/// One named column.
///
/// Columns are cheap to share and to subset: a filter or a sort produces views (row indices
/// into the parent's values) instead of copying every cell of every column, and the values are
/// gathered only when a tool needs them as a slice.
#[derive(Debug, Clone)]
pub struct Column {
    name: Arc<str>,
    data: Arc<ColumnData>,
}

#[derive(Debug)]
struct Base {
    cells: Vec<Cell>,
    kinds: OnceLock<Kinds>,
    /// The memory the values take ([`Column::estimated_bytes`]), computed on first use.
    bytes: OnceLock<usize>,
}

/// A session keeps every table it stored for its whole life, most of them views: so a column
/// holds only its values and rows, and the work kept for later calls is allocated when first
/// needed (most views never need it).
#[derive(Debug)]
struct ColumnData {
    base: Arc<Base>,
    /// The rows of `base` this column holds, in order; `None` for all of them. Views made from
    /// the same table in one step share one list.
    rows: Option<Arc<[u32]>>,
    caches: OnceLock<Box<Caches>>,
}

#[derive(Debug, Default)]
struct Caches {
    /// A view's values copied out ([`Column::cells`]).
    gathered: OnceLock<Vec<Cell>>,
    /// What `pd.DataFrame` makes of the values under each pandas version, when the kinds of
    /// the values they were drawn from do not decide it: their dtype, and the converted column
    /// when the round trip changes values.
    inferred: [OnceLock<(Dtype, Option<Column>)>; 2],
}

impl Column {
    /// A column from its name and values.
    pub fn new(name: impl Into<Arc<str>>, cells: Vec<Cell>) -> Self {
        let base = Base {
            cells,
            kinds: OnceLock::new(),
            bytes: OnceLock::new(),
        };
        Self::from_base(name.into(), Arc::new(base), None)
    }

    fn from_base(name: Arc<str>, base: Arc<Base>, rows: Option<Arc<[u32]>>) -> Self {
        Self {
            name,
            data: Arc::new(ColumnData {
                base,
                rows,
                caches: OnceLock::new(),
            }),
        }
    }

    fn caches(&self) -> &Caches {
        self.data.caches.get_or_init(Box::default)
    }

    /// The key in the reference's dict.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The number of values.
    pub fn len(&self) -> usize {
        self.data
            .rows
            .as_ref()
            .map_or(self.data.base.cells.len(), |r| r.len())
    }

    /// Whether the column has no values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The value in row `row`.
    ///
    /// # Panics
    /// When `row >= self.len()`, like slice indexing.
    pub fn get(&self, row: usize) -> &Cell {
        match &self.data.rows {
            None => &self.data.base.cells[row],
            Some(rows) => &self.data.base.cells[rows[row] as usize],
        }
    }

    /// An estimate of the memory this column holds, for memory caps: the cells and what they
    /// hold outside themselves, added up once per set of values; a view counts its share of the
    /// values it was taken from, its row indices and the copy that gathering it would make.
    /// So estimating a view of a large table costs nothing per row.
    pub fn estimated_bytes(&self) -> usize {
        let cell = std::mem::size_of::<Cell>();
        let base = &self.data.base;
        let base_bytes = *base
            .bytes
            .get_or_init(|| base.cells.iter().map(|c| cell + c.heap_bytes()).sum());
        match &self.data.rows {
            None => base_bytes,
            Some(rows) => {
                let share = (base_bytes as u128 * rows.len() as u128)
                    .checked_div(base.cells.len() as u128)
                    .unwrap_or(0);
                let own = rows.len() * (std::mem::size_of::<u32>() + cell);
                usize::try_from(share)
                    .unwrap_or(usize::MAX)
                    .saturating_add(own)
            }
        }
    }

    /// The values in row order, without gathering a view.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &Cell> + Clone + '_ {
        (0..self.len()).map(move |i| self.get(i))
    }

    /// The values as a slice (a view is gathered once, on first use, and kept).
    pub fn cells(&self) -> &[Cell] {
        let base = &self.data.base.cells;
        match &self.data.rows {
            None => base,
            Some(rows) => self
                .caches()
                .gathered
                .get_or_init(|| rows.iter().map(|&r| base[r as usize].clone()).collect()),
        }
    }

    /// The values as a slice, a view's gathered for the caller only (unless [`Column::cells`]
    /// kept them already): what a tool works on without making a stored view larger.
    pub(crate) fn values(&self) -> Cow<'_, [Cell]> {
        let base = &self.data.base.cells;
        match &self.data.rows {
            None => Cow::Borrowed(base),
            Some(rows) => match self.data.caches.get().and_then(|c| c.gathered.get()) {
                Some(gathered) => Cow::Borrowed(gathered),
                None => Cow::Owned(rows.iter().map(|&r| base[r as usize].clone()).collect()),
            },
        }
    }

    /// A column of the same name with other values.
    pub(crate) fn with_cells(&self, cells: Vec<Cell>) -> Column {
        Column::new(Arc::clone(&self.name), cells)
    }

    /// The kinds of all values this column's values are drawn from (a superset of its own).
    fn base_kinds(&self) -> Kinds {
        *self
            .data
            .base
            .kinds
            .get_or_init(|| Kinds::of(&self.data.base.cells))
    }

    /// Whether some value may be NaN (never a false negative).
    pub(crate) fn may_hold_nan(&self) -> bool {
        self.base_kinds().nan
    }

    /// The rows `rows` (indices into each column) of every column, as views on the same
    /// values. Columns that are views through the same rows (those of one table) get one
    /// composed list between them.
    pub(crate) fn select_all(columns: &[Column], rows: impl Into<Arc<[u32]>>) -> Vec<Column> {
        let rows: Arc<[u32]> = rows.into();
        let identity = rows.iter().enumerate().all(|(i, r)| i == *r as usize);
        // (a column's own rows, `rows` composed with them)
        let mut composed: Vec<[Arc<[u32]>; 2]> = Vec::new();
        columns
            .iter()
            .map(|column| {
                if identity && rows.len() == column.len() {
                    return column.clone();
                }
                let rows = match &column.data.rows {
                    None => Arc::clone(&rows),
                    Some(own) => match composed.iter().find(|[o, _]| Arc::ptr_eq(o, own)) {
                        Some([_, c]) => Arc::clone(c),
                        None => {
                            let c: Arc<[u32]> = rows.iter().map(|&r| own[r as usize]).collect();
                            composed.push([Arc::clone(own), Arc::clone(&c)]);
                            c
                        }
                    },
                };
                Column::from_base(
                    Arc::clone(&column.name),
                    Arc::clone(&column.data.base),
                    Some(rows),
                )
            })
            .collect()
    }

    /// The first `n` rows.
    pub(crate) fn prefix(&self, n: usize) -> Column {
        if n >= self.len() {
            return self.clone();
        }
        let rows: Arc<[u32]> = (0..n as u32).collect();
        Column::select_all(std::slice::from_ref(self), rows)
            .pop()
            .expect("one column")
    }

    /// `pd.DataFrame`'s dtype for this column and the column as pandas stores it.
    pub(crate) fn frame(&self, pandas: Pandas) -> (Dtype, Column) {
        if self.is_empty() {
            return (Dtype::Float64, self.clone());
        }
        let base = self.base_kinds();
        if let Some(dtype) = base.frame_dtype_of_any_subset(pandas) {
            return (dtype, self.clone());
        }
        let (dtype, converted) = self.caches().inferred[pandas.index()].get_or_init(|| {
            // Strings with missing values: `str` as soon as one string is there (usually the
            // first row), converted only when some missing value is not `np.nan` yet.
            if pandas == Pandas::V3
                && base.strings()
                && self.iter().any(|c| matches!(c, Cell::Str(_)))
            {
                let converted = (base.none || base.foreign_nan)
                    .then(|| self.with_cells(self.iter().map(to_str_cell).collect()));
                return (Dtype::Str, converted);
            }
            let (dtype, convert) = Kinds::of(self.iter()).frame_dtype(pandas);
            let store = if dtype == Dtype::Str {
                to_str_cell
            } else {
                to_float_cell
            };
            let converted = convert.then(|| self.with_cells(self.iter().map(store).collect()));
            (dtype, converted)
        });
        (*dtype, converted.clone().unwrap_or_else(|| self.clone()))
    }
}

/// A value as stored in a pandas 3 `str` column (`None` and NaN become `np.nan`).
pub(crate) fn to_str_cell(cell: &Cell) -> Cell {
    if cell.is_null() {
        crate::cell::missing_str()
    } else {
        cell.clone()
    }
}

/// A value as stored in a float64 column (None becomes NaN, bools become 0.0/1.0).
pub(crate) fn to_float_cell(cell: &Cell) -> Cell {
    match cell {
        Cell::None => Cell::Float(f64::NAN),
        Cell::Bool(b) => Cell::Float(if *b { 1.0 } else { 0.0 }),
        Cell::Int(i) => Cell::Float(*i as f64),
        Cell::UInt(u) => Cell::Float(*u as f64),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estimates_count_values_once_and_views_by_their_share() {
        let cell = std::mem::size_of::<Cell>();
        let long = "a string too long to live inside its cell";
        let cells: Vec<Cell> = (0..100)
            .map(|i| {
                if i % 2 == 0 {
                    Cell::Str(long.into())
                } else {
                    Cell::Str("short".into())
                }
            })
            .collect();
        let column = Column::new("c", cells);
        let values = 100 * cell + 50 * long.len();
        assert_eq!(
            column.estimated_bytes(),
            values,
            "inline strings hold nothing outside"
        );
        let select = |rows: Vec<u32>| {
            Column::select_all(std::slice::from_ref(&column), rows)
                .pop()
                .expect("one column")
        };
        let view = select((0..100).step_by(10).collect());
        assert_eq!(view.estimated_bytes(), values / 10 + 10 * (4 + cell));
        assert_eq!(
            select((0..100).rev().collect()).estimated_bytes(),
            values + 100 * (4 + cell)
        );
        assert_eq!(Column::new("e", Vec::new()).estimated_bytes(), 0);
    }

    fn ints(name: &str, values: impl IntoIterator<Item = i64>) -> Column {
        Column::new(name, values.into_iter().map(Cell::Int).collect())
    }

    fn rows(column: &Column) -> &Arc<[u32]> {
        column.data.rows.as_ref().expect("a view")
    }

    #[test]
    fn views_of_one_table_share_one_row_list() {
        let table = [ints("a", 0..5), ints("b", 10..15)];
        let picked = Column::select_all(&table, vec![4, 1, 3]);
        assert!(Arc::ptr_eq(rows(&picked[0]), rows(&picked[1])));
        let again = Column::select_all(&picked, vec![2, 0]);
        assert!(Arc::ptr_eq(rows(&again[0]), rows(&again[1])));
        assert_eq!(&**rows(&again[0]), &[3, 4]);
        assert_eq!(
            again[1].iter().cloned().collect::<Vec<_>>(),
            [13, 14].map(Cell::Int)
        );
        let all = Column::select_all(&picked, vec![0, 1, 2]);
        assert!(
            Arc::ptr_eq(&all[0].data, &picked[0].data),
            "all rows in order: the same column"
        );
    }

    #[test]
    fn a_view_keeps_nothing_for_tools_until_asked() {
        let view = Column::select_all(&[ints("a", 0..100)], (0..100).rev().collect::<Vec<u32>>())
            .pop()
            .expect("one column");
        assert_eq!(view.frame(Pandas::V3).0, Dtype::Int64);
        assert!(matches!(view.values(), Cow::Owned(_)));
        assert!(
            view.data.caches.get().is_none(),
            "no caches for dtypes the values decide or for a tool's copy"
        );
        assert_eq!(view.cells()[0], Cell::Int(99));
        assert!(
            matches!(view.values(), Cow::Borrowed(_)),
            "cells() keeps its copy"
        );
        let mixed = Column::new("m", vec![Cell::Int(1), Cell::None, Cell::Int(2)]);
        let view = Column::select_all(&[mixed], vec![0, 2])
            .pop()
            .expect("one column");
        let (dtype, stored) = view.frame(Pandas::V3);
        assert_eq!(dtype, Dtype::Int64, "the view's values have no None");
        assert!(Arc::ptr_eq(&stored.data, &view.data));
        assert!(
            view.data.caches.get().is_some(),
            "inferred from the view's values, once"
        );
    }
}
