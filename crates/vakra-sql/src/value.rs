use rusqlite::types::{ToSqlOutput, Value, ValueRef};

/// One SQLite value, with SQLite's own dynamic type: this is what Python's `sqlite3` hands to
/// the reference's handlers (INTEGER → int, REAL → float, TEXT → str, BLOB → bytes, NULL → None),
/// and the integer/float distinction is visible in the JSON that agents read.
#[derive(Debug, Clone, PartialEq)]
pub enum SqlValue {
    Null,
    Integer(i64),
    Real(f64),
    Text(String),
    Blob(Vec<u8>),
}

impl SqlValue {
    pub(crate) fn from_ref(value: ValueRef<'_>) -> Result<Self, std::str::Utf8Error> {
        Ok(match value {
            ValueRef::Null => SqlValue::Null,
            ValueRef::Integer(i) => SqlValue::Integer(i),
            ValueRef::Real(f) => SqlValue::Real(f),
            ValueRef::Text(bytes) => SqlValue::Text(std::str::from_utf8(bytes)?.to_owned()),
            ValueRef::Blob(bytes) => SqlValue::Blob(bytes.to_vec()),
        })
    }

    /// The memory this value takes once fetched (the enum and its heap data), for the byte
    /// limit of [`crate::Database::query_within`].
    pub fn estimated_bytes(&self) -> usize {
        std::mem::size_of::<Self>()
            + match self {
                SqlValue::Text(s) => s.len(),
                SqlValue::Blob(b) => b.len(),
                _ => 0,
            }
    }
}

impl rusqlite::ToSql for SqlValue {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(match self {
            SqlValue::Null => ToSqlOutput::Owned(Value::Null),
            SqlValue::Integer(i) => ToSqlOutput::Borrowed(ValueRef::Integer(*i)),
            SqlValue::Real(f) => ToSqlOutput::Borrowed(ValueRef::Real(*f)),
            SqlValue::Text(s) => ToSqlOutput::Borrowed(ValueRef::Text(s.as_bytes())),
            SqlValue::Blob(b) => ToSqlOutput::Borrowed(ValueRef::Blob(b)),
        })
    }
}
