//! Tables as the reference keeps them (a dict of equal-length lists plus an optional `_dtypes`
//! sidecar) and the pandas dtype inference that decides their values.

use std::sync::Arc;

use vakra_sql::SqlValue;

use crate::cell::Cell;
use crate::column::Column;
use crate::dtype::Dtype;
use crate::error::ToolError;
use crate::pandas::Pandas;

/// A table: what the reference stores under a handle.
///
/// Columns keep insertion order (Python dicts do). Tables built by pandas carry a dtype per
/// column (the reference's `"_dtypes"` key); tables built by pure-Python steps do not. The
/// sidecar only decides the `dtype` shown in peeks and getter descriptions, since every tool
/// strips it from its inputs.
#[derive(Debug, Clone, Default)]
pub struct Table {
    columns: Vec<Column>,
    dtypes: Option<Vec<Dtype>>,
}

impl Table {
    /// A table without a sidecar, from `(name, values)` pairs with Python dict semantics: a
    /// repeated name keeps its first position and takes the later values.
    pub fn from_columns<N: Into<Arc<str>>>(
        columns: impl IntoIterator<Item = (N, Vec<Cell>)>,
    ) -> Self {
        let mut table = Table::default();
        for (name, cells) in columns {
            table.insert(Column::new(name, cells), None);
        }
        table
    }

    /// Attaches a `_dtypes` sidecar, one dtype per column in column order (missing entries
    /// default to `object`, as pandas' default for unknown columns; extra ones are dropped).
    pub fn with_dtypes(mut self, mut dtypes: Vec<Dtype>) -> Self {
        dtypes.resize(self.columns.len(), Dtype::Object);
        self.dtypes = Some(dtypes);
        self
    }

    /// The same table without its sidecar, as every tool receives its inputs.
    pub fn without_dtypes(&self) -> Table {
        Table {
            columns: self.columns.clone(),
            dtypes: None,
        }
    }

    /// A table from columns and, for pandas-built tables, their dtypes.
    pub(crate) fn from_parts(columns: Vec<Column>, dtypes: Option<Vec<Dtype>>) -> Self {
        let mut table = Table {
            columns: Vec::with_capacity(columns.len()),
            dtypes: dtypes.as_ref().map(|_| Vec::with_capacity(columns.len())),
        };
        let mut dtypes = dtypes.unwrap_or_default().into_iter();
        for column in columns {
            table.insert(column, dtypes.next());
        }
        table
    }

    /// Inserts or replaces a column the way `dict[key] = value` does (a sidecar, if any, gets
    /// `dtype`, or `object` when none is given).
    fn insert(&mut self, column: Column, dtype: Option<Dtype>) {
        let dtype = dtype.unwrap_or(Dtype::Object);
        match self.position(column.name()) {
            Some(pos) => {
                self.columns[pos] = column;
                if let Some(dtypes) = self.dtypes.as_mut() {
                    dtypes[pos] = dtype;
                }
            }
            None => {
                self.columns.push(column);
                if let Some(dtypes) = self.dtypes.as_mut() {
                    dtypes.push(dtype);
                }
            }
        }
    }

    /// The columns in order.
    pub fn columns(&self) -> &[Column] {
        &self.columns
    }

    /// The column names in order (the valid `key_name` values).
    pub fn column_names(&self) -> impl Iterator<Item = &str> {
        self.columns.iter().map(|c| c.name())
    }

    /// The values of column `name`, if present (exact, case-sensitive match).
    pub fn column(&self, name: &str) -> Option<&[Cell]> {
        self.position(name).map(|i| self.columns[i].cells())
    }

    pub(crate) fn position(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.name() == name)
    }

    /// The number of columns.
    pub fn num_columns(&self) -> usize {
        self.columns.len()
    }

    /// An estimate of the memory the table holds ([`Column::estimated_bytes`] of each column
    /// and its name), for the session memory cap and the universe cache.
    pub fn estimated_bytes(&self) -> usize {
        self.columns
            .iter()
            .map(|c| c.estimated_bytes() + c.name().len())
            .sum()
    }

    /// The reference's `num_records`: the length of the first column, 0 without columns.
    pub fn num_rows(&self) -> usize {
        self.columns.first().map_or(0, Column::len)
    }

    /// Whether the table carries a `_dtypes` sidecar.
    pub fn has_dtypes(&self) -> bool {
        self.dtypes.is_some()
    }

    /// The sidecar dtype of column `name`, if the table has a sidecar and the column.
    pub fn dtype(&self, name: &str) -> Option<Dtype> {
        let dtypes = self.dtypes.as_ref()?;
        self.position(name).and_then(|i| dtypes.get(i).copied())
    }

    pub(crate) fn dtype_at(&self, index: usize) -> Option<Dtype> {
        self.dtypes.as_ref().and_then(|d| d.get(index).copied())
    }

    /// `pandas.read_sql_query(...)` followed by `to_dict('list')` plus the sidecar, for a result
    /// set: the dtype of each column is inferred from all its values (§3.4 of the spec).
    pub fn from_sql(columns: Vec<String>, rows: Vec<Vec<SqlValue>>, pandas: Pandas) -> Table {
        let width = columns.len();
        let zero_rows = rows.is_empty();
        let mut values: Vec<Vec<SqlValue>> =
            (0..width).map(|_| Vec::with_capacity(rows.len())).collect();
        for row in rows {
            for (i, value) in row.into_iter().enumerate().take(width) {
                values[i].push(value);
            }
        }
        let mut table = Table {
            columns: Vec::new(),
            dtypes: Some(Vec::new()),
        };
        for (name, column) in columns.into_iter().zip(values) {
            let (dtype, cells) = if zero_rows {
                (Dtype::Object, Vec::new())
            } else {
                infer_sql_column(column, pandas)
            };
            table.insert(Column::new(name, cells), Some(dtype));
        }
        table
    }

    /// `pd.DataFrame(dict)` followed by `to_dict('list')` plus the sidecar: what filter, sort
    /// and concatenate do to their inputs before working on them (§3.5 of the spec).
    pub fn reinfer(&self, pandas: Pandas) -> Table {
        let mut columns = Vec::with_capacity(self.columns.len());
        let mut dtypes = Vec::with_capacity(self.columns.len());
        for column in &self.columns {
            let (dtype, frame_column) = column.frame(pandas);
            dtypes.push(dtype);
            columns.push(frame_column);
        }
        Table {
            columns,
            dtypes: Some(dtypes),
        }
    }

    /// `pd.DataFrame(data)` refuses ragged dicts; the reference's tools fail with its message.
    pub(crate) fn check_rectangular(&self) -> Result<(), ToolError> {
        let rows = self.num_rows();
        if self.columns.iter().any(|c| c.len() != rows) {
            return Err(ToolError::new("All arrays must be of the same length"));
        }
        Ok(())
    }

    /// The reference's `get_best_key`: the exact key, else the first key equal ignoring case.
    pub(crate) fn best_key(&self, key_name: &str) -> Result<usize, ToolError> {
        if let Some(i) = self.position(key_name) {
            return Ok(i);
        }
        let lowered = key_name.to_lowercase();
        if let Some(i) = self
            .columns
            .iter()
            .position(|c| c.name().to_lowercase() == lowered)
        {
            return Ok(i);
        }
        let keys: Vec<String> = self
            .columns
            .iter()
            .map(|c| vakra_pytext::str_repr(c.name()))
            .collect();
        Err(ToolError::key_error(&format!(
            "Key: {key_name} not found in table. Choose from available keys: [{}]",
            keys.join(", ")
        )))
    }

    /// `data[key]`, whose failure is a `KeyError` showing the key's repr.
    pub(crate) fn index_of(&self, key: &str) -> Result<usize, ToolError> {
        self.position(key).ok_or_else(|| ToolError::key_error(key))
    }
}

/// One SQLite result column through `maybe_convert_objects`: all integers stay int64; integers
/// and reals (and NULLs among numbers) become float64; under pandas 3, text with NULLs at most
/// becomes `str` (NULL as `np.nan`); any other text or blob, or only NULLs, keeps the raw
/// Python objects as `object`.
fn infer_sql_column(values: Vec<SqlValue>, pandas: Pandas) -> (Dtype, Vec<Cell>) {
    let mut any_real = false;
    let mut any_null = false;
    let mut any_number = false;
    let mut any_other = false;
    for value in &values {
        match value {
            SqlValue::Null => any_null = true,
            SqlValue::Integer(_) => any_number = true,
            SqlValue::Real(_) => {
                any_number = true;
                any_real = true;
            }
            SqlValue::Text(_) | SqlValue::Blob(_) => any_other = true,
        }
    }
    let numeric = any_number && !any_other;
    let strings = pandas == Pandas::V3
        && !any_number
        && values
            .iter()
            .all(|v| matches!(v, SqlValue::Null | SqlValue::Text(_)))
        && values.iter().any(|v| matches!(v, SqlValue::Text(_)));
    let dtype = if strings {
        Dtype::Str
    } else if !numeric {
        Dtype::Object
    } else if any_real || any_null {
        Dtype::Float64
    } else {
        Dtype::Int64
    };
    let cells = values
        .into_iter()
        .map(|value| match (value, dtype) {
            (SqlValue::Null, Dtype::Float64) => Cell::Float(f64::NAN),
            (SqlValue::Null, Dtype::Str) => crate::cell::missing_str(),
            (SqlValue::Null, _) => Cell::None,
            (SqlValue::Integer(i), Dtype::Float64) => Cell::Float(i as f64),
            (SqlValue::Integer(i), _) => Cell::Int(i),
            (SqlValue::Real(x), _) => Cell::Float(x),
            (SqlValue::Text(s), _) => Cell::from(s),
            (SqlValue::Blob(b), _) => Cell::Bytes(Arc::from(b)),
        })
        .collect();
    (dtype, cells)
}
