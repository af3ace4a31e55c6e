//! The document vectors beside an index (`vectors.f32`): row `r` holds the vector of the
//! document whose ord is `r`, little-endian `f32`; written by `vakra index`, read whole when the
//! index opens.

use std::io::Write;
use std::path::Path;

use tantivy::DocAddress;

use crate::RetrievalError;
use crate::manifest::Manifest;

const VECTORS_FILE: &str = "vectors.f32";

/// The document vectors of an index.
pub(crate) struct Vectors {
    data: Vec<f32>,
    dimension: usize,
    /// Document address by ord, to read the stored fields of dense results.
    addresses: Vec<DocAddress>,
}

impl Vectors {
    /// Reads the vectors of an index built with a model (`Ok(None)` for a BM25-only index).
    pub(crate) fn open(
        dir: &Path,
        manifest: &Manifest,
        addresses: impl FnOnce() -> Result<Vec<DocAddress>, String>,
    ) -> Result<Option<Self>, String> {
        let Some(dense) = &manifest.dense else {
            return Ok(None);
        };
        let path = dir.join(VECTORS_FILE);
        let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let expected = (manifest.documents as usize)
            .checked_mul(dense.dimension)
            .and_then(|n| n.checked_mul(4));
        if expected != Some(bytes.len()) {
            return Err(format!("{}: wrong size", path.display()));
        }
        let data = bytes
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        Ok(Some(Self {
            data,
            dimension: dense.dimension,
            addresses: addresses()?,
        }))
    }

    pub(crate) fn row(&self, ord: usize) -> &[f32] {
        &self.data[ord * self.dimension..(ord + 1) * self.dimension]
    }

    pub(crate) fn len(&self) -> usize {
        self.addresses.len()
    }

    pub(crate) fn dimension(&self) -> usize {
        self.dimension
    }

    /// The address of the document whose ord is `ord`.
    pub(crate) fn address(&self, ord: usize) -> DocAddress {
        self.addresses[ord]
    }
}

/// Writes the vector file: row `ord` is the vector of the document whose ord it is.
pub(crate) fn write_vectors(
    dir: &Path,
    rows: &[Vec<f32>],
    ords: &[u64],
    dimension: usize,
) -> Result<(), RetrievalError> {
    let mut data = vec![0f32; rows.len() * dimension];
    for (row, &ord) in rows.iter().zip(ords) {
        let ord = ord as usize;
        data[ord * dimension..(ord + 1) * dimension].copy_from_slice(row);
    }
    let path = dir.join(VECTORS_FILE);
    let mut file = std::io::BufWriter::new(
        std::fs::File::create(&path).map_err(|e| RetrievalError::io(&path, e))?,
    );
    for value in &data {
        file.write_all(&value.to_le_bytes())
            .map_err(|e| RetrievalError::io(&path, e))?;
    }
    file.flush().map_err(|e| RetrievalError::io(&path, e))
}
