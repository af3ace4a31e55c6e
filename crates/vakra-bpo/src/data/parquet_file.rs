//! Reads the columns the tools need from a parquet file with the typed column readers (no
//! arrow): strings as UTF-8 byte arrays, timestamps as 64-bit integers in any unit, booleans.

use std::fs::File;
use std::path::Path;

use parquet::basic::{LogicalType, TimeUnit};
use parquet::column::reader::{ColumnReader, ColumnReaderImpl};
use parquet::data_type::{ByteArray, DataType};
use parquet::file::reader::{FileReader, RowGroupReader, SerializedFileReader};

use super::{Flag, RawSkills, RawTable};
use crate::error::BpoError;

const BATCH: usize = 8192;

struct Ctx<'a> {
    path: &'a Path,
}

impl Ctx<'_> {
    fn parquet(&self, source: parquet::errors::ParquetError) -> BpoError {
        BpoError::Parquet {
            path: self.path.to_path_buf(),
            source,
        }
    }

    fn column_type(&self, column: &'static str, expected: &'static str) -> BpoError {
        BpoError::ColumnType {
            path: self.path.to_path_buf(),
            column,
            expected,
        }
    }

    fn bad_value(&self, row: usize, column: &'static str) -> BpoError {
        BpoError::BadValue {
            path: self.path.to_path_buf(),
            row,
            column,
        }
    }

    /// All values of one column of one row group; `None` for nulls.
    fn read_all<T: DataType>(
        &self,
        mut reader: ColumnReaderImpl<T>,
        rows: usize,
        nullable: bool,
    ) -> Result<Vec<Option<T::T>>, BpoError> {
        let mut out = Vec::with_capacity(rows);
        let mut defs = Vec::new();
        let mut values = Vec::new();
        loop {
            defs.clear();
            values.clear();
            let (records, _, _) = reader
                .read_records(BATCH, Some(&mut defs), None, &mut values)
                .map_err(|e| self.parquet(e))?;
            if records == 0 {
                break;
            }
            if nullable {
                let mut values = values.drain(..);
                for &def in &defs {
                    out.push(if def > 0 { values.next() } else { None });
                }
            } else {
                out.extend(values.drain(..).map(Some));
            }
        }
        Ok(out)
    }
}

/// Where a needed column sits in the file and whether it can hold nulls.
struct ColumnSlot {
    index: usize,
    nullable: bool,
    nanos_per_unit: i64,
}

fn find_column(
    reader: &SerializedFileReader<File>,
    ctx: &Ctx,
    name: &'static str,
) -> Result<ColumnSlot, BpoError> {
    let schema = reader.metadata().file_metadata().schema_descr();
    let index = (0..schema.num_columns())
        .find(|&i| {
            let column = schema.column(i);
            column.path().parts().len() == 1 && column.name() == name
        })
        .ok_or_else(|| BpoError::MissingColumn {
            path: ctx.path.to_path_buf(),
            column: name,
        })?;
    let column = schema.column(index);
    if column.max_rep_level() > 0 {
        return Err(ctx.column_type(name, "one value per row"));
    }
    let nanos_per_unit = match column.logical_type_ref() {
        Some(LogicalType::Timestamp(t)) => match t.unit {
            TimeUnit::MILLIS => 1_000_000,
            TimeUnit::MICROS => 1_000,
            TimeUnit::NANOS => 1,
        },
        _ => 1,
    };
    Ok(ColumnSlot {
        index,
        nullable: column.max_def_level() > 0,
        nanos_per_unit,
    })
}

fn strings(
    ctx: &Ctx,
    group: &dyn RowGroupReader,
    slot: &ColumnSlot,
    name: &'static str,
    rows: usize,
    first_row: usize,
) -> Result<Vec<Option<String>>, BpoError> {
    let reader = group
        .get_column_reader(slot.index)
        .map_err(|e| ctx.parquet(e))?;
    let ColumnReader::ByteArrayColumnReader(reader) = reader else {
        return Err(ctx.column_type(name, "strings"));
    };
    ctx.read_all(reader, rows, slot.nullable)?
        .into_iter()
        .enumerate()
        .map(|(i, value)| match value {
            None => Ok(None),
            Some(bytes) => utf8(bytes)
                .map(Some)
                .ok_or_else(|| ctx.bad_value(first_row + i, name)),
        })
        .collect()
}

fn utf8(bytes: ByteArray) -> Option<String> {
    String::from_utf8(bytes.data().to_vec()).ok()
}

fn timestamps(
    ctx: &Ctx,
    group: &dyn RowGroupReader,
    slot: &ColumnSlot,
    name: &'static str,
    rows: usize,
) -> Result<Vec<Option<i64>>, BpoError> {
    let reader = group
        .get_column_reader(slot.index)
        .map_err(|e| ctx.parquet(e))?;
    let ColumnReader::Int64ColumnReader(reader) = reader else {
        return Err(ctx.column_type(name, "64-bit timestamps"));
    };
    Ok(ctx
        .read_all(reader, rows, slot.nullable)?
        .into_iter()
        .map(|v| v.and_then(|v| v.checked_mul(slot.nanos_per_unit)))
        .collect())
}

fn booleans(
    ctx: &Ctx,
    group: &dyn RowGroupReader,
    slot: &ColumnSlot,
    name: &'static str,
    rows: usize,
) -> Result<Vec<Option<bool>>, BpoError> {
    let reader = group
        .get_column_reader(slot.index)
        .map_err(|e| ctx.parquet(e))?;
    let ColumnReader::BoolColumnReader(reader) = reader else {
        return Err(ctx.column_type(name, "booleans"));
    };
    ctx.read_all(reader, rows, slot.nullable)
}

fn required(
    ctx: &Ctx,
    values: Vec<Option<String>>,
    name: &'static str,
    first_row: usize,
) -> Result<Vec<String>, BpoError> {
    values
        .into_iter()
        .enumerate()
        .map(|(i, v)| v.ok_or_else(|| ctx.bad_value(first_row + i, name)))
        .collect()
}

/// Reads `path` into a [`RawTable`].
pub fn read(path: &Path) -> Result<RawTable, BpoError> {
    let ctx = Ctx { path };
    let file = File::open(path).map_err(|source| BpoError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let reader = SerializedFileReader::new(file).map_err(|e| ctx.parquet(e))?;
    let slot = |name| find_column(&reader, &ctx, name);
    let requisition_id = slot("requisition_id")?;
    let department = slot("department")?;
    let seniority_level = slot("seniority_level")?;
    let template = slot("requisition_template_id")?;
    let source_name = slot("source_name")?;
    let applied_at = slot("applied_at")?;
    let hire_date = slot("hire_date")?;
    let skills = slot("skills")?;
    let flags = Flag::ALL
        .iter()
        .map(|&(flag, name)| Ok((flag, name, slot(name)?)))
        .collect::<Result<Vec<_>, BpoError>>()?;

    let mut table = RawTable::default();
    for g in 0..reader.num_row_groups() {
        let group = reader.get_row_group(g).map_err(|e| ctx.parquet(e))?;
        let rows = usize::try_from(group.metadata().num_rows()).unwrap_or(0);
        let first = table.requisition_id.len();
        let group = group.as_ref();
        table.requisition_id.extend(required(
            &ctx,
            strings(&ctx, group, &requisition_id, "requisition_id", rows, first)?,
            "requisition_id",
            first,
        )?);
        table.source_name.extend(required(
            &ctx,
            strings(&ctx, group, &source_name, "source_name", rows, first)?,
            "source_name",
            first,
        )?);
        table.department.extend(strings(
            &ctx,
            group,
            &department,
            "department",
            rows,
            first,
        )?);
        table.seniority_level.extend(strings(
            &ctx,
            group,
            &seniority_level,
            "seniority_level",
            rows,
            first,
        )?);
        table.requisition_template_id.extend(strings(
            &ctx,
            group,
            &template,
            "requisition_template_id",
            rows,
            first,
        )?);
        table
            .applied_at
            .extend(timestamps(&ctx, group, &applied_at, "applied_at", rows)?);
        table
            .hire_date
            .extend(timestamps(&ctx, group, &hire_date, "hire_date", rows)?);
        table.skills.extend(
            strings(&ctx, group, &skills, "skills", rows, first)?
                .into_iter()
                .map(|s| s.map_or_else(|| RawSkills::List(Vec::new()), RawSkills::Literal)),
        );
        table.flags.resize(first + rows, 0);
        for (flag, name, slot) in &flags {
            let values = booleans(&ctx, group, slot, name, rows)?;
            if values.len() != rows {
                return Err(ctx.column_type(name, "as many values as the row group"));
            }
            for (i, value) in values.into_iter().enumerate() {
                let value = value.ok_or_else(|| ctx.bad_value(first + i, name))?;
                table.set_flag(first + i, *flag, value);
            }
        }
        let lengths = [
            table.source_name.len(),
            table.department.len(),
            table.seniority_level.len(),
            table.requisition_template_id.len(),
            table.applied_at.len(),
            table.hire_date.len(),
            table.skills.len(),
        ];
        if table.requisition_id.len() != first + rows || lengths.iter().any(|&l| l != first + rows)
        {
            return Err(ctx.column_type("requisition_id", "as many values as the row group"));
        }
    }
    Ok(table)
}
