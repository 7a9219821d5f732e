//! `runs.parquet`: a campaign's `runs.csv` as a Parquet table, for pandas, polars, pyarrow,
//! Spark and DuckDB, with what the campaign is as the file's key–value metadata.
//!
//! Columns, in `runs.csv`'s order: `run` and `seed` (unsigned 64-bit integers), one per
//! dispersed key (double, or the TOML text as a string for a `choice`), `status` (string), one
//! double per result column (null where the run has none), `note` (string). Metadata:
//! `tumble.scenario` (the file as given), `tumble.scenario_text` (its text after overrides),
//! `tumble.scenario_hash`, `tumble.seed`, `tumble.runs`, `tumble.dispersions` (JSON: each
//! key and its distribution), `tumble.backend`, `tumble.shard` (for a shard) and
//! `tumble.version`. Nothing measured goes in, so the file is a function of the rows: a
//! campaign merged from shards writes the same bytes as one run on one machine.
//!
//! Written by the `parquet` crate's column writer without its Arrow layer (no compression
//! codec), behind tumble-sim's `parquet` feature; without it no Parquet file is written.

use super::{Campaign, RunRow};
use std::path::Path;

/// Whether this build writes `runs.parquet`.
pub const PARQUET: bool = cfg!(feature = "parquet");

/// Writes `rows` of campaign `c` to `path` (nothing without the `parquet` feature).
#[cfg(not(feature = "parquet"))]
pub fn write(_c: &Campaign, _rows: &[RunRow], _path: &Path) -> Result<(), String> {
    Ok(())
}

/// Writes `rows` of campaign `c` to `path` (`tumble_math::output::write`: a new file renamed
/// into place).
#[cfg(feature = "parquet")]
pub fn write(c: &Campaign, rows: &[RunRow], path: &Path) -> Result<(), String> {
    let mut bytes = Vec::new();
    imp::write(c, rows, &mut bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    tumble_math::output::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))
}

#[cfg(feature = "parquet")]
mod imp {
    use super::super::dispersion::Distribution;
    use super::{Campaign, RunRow};
    use parquet::basic::{LogicalType, Repetition, Type as Physical};
    use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int64Type};
    use parquet::errors::ParquetError;
    use parquet::file::metadata::KeyValue;
    use parquet::file::properties::WriterProperties;
    use parquet::file::writer::SerializedFileWriter;
    use parquet::schema::types::{Type, TypePtr};
    use std::sync::Arc;

    /// One column's values.
    enum Column {
        UInt(Vec<i64>),
        Double(Vec<Option<f64>>),
        Text(Vec<String>),
    }

    fn field(
        name: &str,
        physical: Physical,
        logical: Option<LogicalType>,
        rep: Repetition,
    ) -> Result<TypePtr, ParquetError> {
        Ok(Arc::new(
            Type::primitive_type_builder(name, physical).with_logical_type(logical).with_repetition(rep).build()?,
        ))
    }

    /// The table's columns: (name, values).
    fn columns(c: &Campaign, rows: &[RunRow]) -> Vec<(String, Column)> {
        let mut out = vec![
            ("run".to_string(), Column::UInt(rows.iter().map(|r| r.index as i64).collect())),
            ("seed".to_string(), Column::UInt(vec![c.options.seed as i64; rows.len()])),
        ];
        for (i, d) in c.dispersions.iter().enumerate() {
            let text = rows.iter().map(|r| r.values.get(i).cloned().unwrap_or_default());
            let col = if matches!(d.dist, Distribution::Choice(_)) {
                Column::Text(text.collect())
            } else {
                Column::Double(text.map(|t| t.parse::<f64>().ok()).collect())
            };
            out.push((d.key.clone(), col));
        }
        out.push(("status".into(), Column::Text(rows.iter().map(|r| r.status.clone()).collect())));
        for (i, name) in c.kind.columns().into_iter().enumerate() {
            let v = rows.iter().map(|r| r.results.get(i).copied().filter(|x| !x.is_nan())).collect();
            out.push((name, Column::Double(v)));
        }
        out.push(("note".into(), Column::Text(rows.iter().map(|r| r.note.clone()).collect())));
        out
    }

    /// What the campaign is, as key–value metadata.
    fn metadata(c: &Campaign) -> Vec<KeyValue> {
        let id = c.identity();
        let dispersions: Vec<_> = (c.dispersions.iter())
            .map(|d| serde_json::json!({ "key": d.key, "distribution": d.dist.to_json() }))
            .collect();
        let mut kv = vec![
            ("tumble.version", env!("CARGO_PKG_VERSION").to_string()),
            ("tumble.scenario", c.scenario.path.display().to_string()),
            ("tumble.scenario_text", c.scenario.text.clone()),
            ("tumble.scenario_hash", id["scenario_hash"].as_str().unwrap_or_default().to_string()),
            ("tumble.seed", c.options.seed.to_string()),
            ("tumble.runs", c.options.runs.to_string()),
            ("tumble.dispersions", serde_json::Value::from(dispersions).to_string()),
            ("tumble.backend", c.backend.clone().unwrap_or_else(|| "cpu".into())),
        ];
        kv.extend(c.options.shard.map(|s| ("tumble.shard", s.to_string())));
        kv.into_iter().map(|(k, v)| KeyValue::new(k.to_string(), v)).collect()
    }

    pub(super) fn write(c: &Campaign, rows: &[RunRow], file: &mut Vec<u8>) -> Result<(), String> {
        let cols = columns(c, rows);
        let pe = |e: ParquetError| e.to_string();
        let fields = (cols.iter())
            .map(|(name, col)| match col {
                Column::UInt(_) => {
                    field(name, Physical::INT64, Some(LogicalType::integer(64, false)), Repetition::REQUIRED)
                }
                Column::Double(_) => field(name, Physical::DOUBLE, None, Repetition::OPTIONAL),
                Column::Text(_) => field(name, Physical::BYTE_ARRAY, Some(LogicalType::String), Repetition::REQUIRED),
            })
            .collect::<Result<Vec<_>, _>>()
            .map_err(pe)?;
        let schema = Arc::new(Type::group_type_builder("schema").with_fields(fields).build().map_err(pe)?);
        let props = WriterProperties::builder().set_key_value_metadata(Some(metadata(c))).build();
        let mut w = SerializedFileWriter::new(file, schema, Arc::new(props)).map_err(pe)?;
        let mut group = w.next_row_group().map_err(pe)?;
        for (_, col) in &cols {
            let Some(mut cw) = group.next_column().map_err(pe)? else { break };
            match col {
                Column::UInt(v) => cw.typed::<Int64Type>().write_batch(v, None, None),
                Column::Double(v) => {
                    let present: Vec<f64> = v.iter().flatten().copied().collect();
                    let defined: Vec<i16> = v.iter().map(|x| x.is_some() as i16).collect();
                    cw.typed::<DoubleType>().write_batch(&present, Some(&defined), None)
                }
                Column::Text(v) => {
                    let bytes: Vec<ByteArray> = v.iter().map(|s| ByteArray::from(s.as_bytes().to_vec())).collect();
                    cw.typed::<ByteArrayType>().write_batch(&bytes, None, None)
                }
            }
            .map_err(pe)?;
            cw.close().map_err(pe)?;
        }
        group.close().map_err(pe)?;
        w.close().map_err(pe)?;
        Ok(())
    }
}
