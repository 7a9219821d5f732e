//! [`Table`]: a run's time series as named columns, the one form every application's samples
//! take on their way to `timeseries.csv`, a plot, or a caller (the Python package's arrays).

use std::io::Write;

/// Rows of numbers under named columns, each `name [unit]` as in `timeseries.csv` (`t [s]`,
/// `payload.vx [m/s]`, `contacts [1]`), stored row after row.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    columns: Vec<String>,
    data: Vec<f64>,
}

impl Table {
    /// An empty table with these columns.
    pub fn new(columns: Vec<String>) -> Self {
        Self { columns, data: Vec::new() }
    }

    /// The column names, units included.
    pub fn columns(&self) -> &[String] {
        &self.columns
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.data.len().checked_div(self.columns.len()).unwrap_or(0)
    }

    /// Whether the table has no row.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// Appends a row. A row of another width than the columns is a programming error and
    /// panics.
    pub fn push(&mut self, row: &[f64]) {
        assert_eq!(row.len(), self.columns.len(), "a row of {} values for {} columns", row.len(), self.columns.len());
        self.data.extend_from_slice(row);
    }

    /// The rows.
    pub fn rows(&self) -> impl Iterator<Item = &[f64]> {
        self.data.chunks_exact(self.columns.len().max(1))
    }

    /// The values of column `index`.
    pub fn column_at(&self, index: usize) -> Vec<f64> {
        self.rows().map(|r| r[index]).collect()
    }

    /// The values of the column named `name`, if there is one.
    pub fn column(&self, name: &str) -> Option<Vec<f64>> {
        self.columns.iter().position(|c| c == name).map(|i| self.column_at(i))
    }

    /// Writes the table as CSV, the one writer of every `timeseries.csv`: the names, then one
    /// line per row, each number in Rust's shortest form that reads back to the same `f64`
    /// (plain decimals for magnitudes from 1e-5 to 1e16, exponent notation beyond); a
    /// non-finite value (which the pipeline's guard keeps out of recorded samples) as an empty
    /// cell.
    ///
    /// A value beyond [`crate::pipeline::ABSURD`] in magnitude (a product of inputs out of all
    /// physical range, which no state guard sees) is refused before anything is written.
    pub fn write_csv(&self, w: &mut impl Write) -> std::io::Result<()> {
        let width = self.columns.len().max(1);
        if let Some(i) = self.data.iter().position(|v| v.abs() > crate::pipeline::ABSURD) {
            return Err(absurd(&self.columns[i % width], self.data[i]));
        }
        writeln!(w, "{}", self.columns.join(","))?;
        for row in self.rows() {
            for (i, v) in row.iter().enumerate() {
                if i > 0 {
                    w.write_all(b",")?;
                }
                let a = v.abs();
                if a == 0.0 || (1e-5..1e16).contains(&a) {
                    write!(w, "{v}")?;
                } else if v.is_finite() {
                    write!(w, "{v:e}")?;
                }
            }
            w.write_all(b"\n")?;
        }
        Ok(())
    }
}

/// The error of a column that reached `value`, beyond any physical magnitude.
pub(crate) fn absurd(column: &str, value: f64) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        format!(
            "column `{column}` reaches {value:e}, beyond any physical magnitude ({:e}): the run's inputs are out of physical range (masses, speeds, stiffnesses)",
            crate::pipeline::ABSURD
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_reads_back_bit_for_bit() {
        let mut t = Table::new(vec!["t [s]".into(), "x [m]".into()]);
        t.push(&[0.1, 1.0 / 3.0]);
        t.push(&[f64::MIN_POSITIVE, -2.5e29]);
        t.push(&[7.0, f64::NAN]);
        let mut out = Vec::new();
        t.write_csv(&mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "t [s],x [m]");
        assert_eq!(lines[1], "0.1,0.3333333333333333");
        assert_eq!(lines[3], "7,");
        for (line, row) in lines[1..3].iter().zip(t.rows()) {
            let back: Vec<f64> = line.split(',').map(|x| x.parse().unwrap()).collect();
            assert_eq!(
                back.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                row.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
            );
        }
        assert_eq!(t.len(), 3);
        assert_eq!(t.column("x [m]").unwrap()[0], 1.0 / 3.0);
        assert!(t.column("y [m]").is_none());
        // Beyond 1e30 (the guard's bound): refused, naming the column, before a byte is written.
        t.push(&[8.0, -2.5e300]);
        let mut out = Vec::new();
        let e = t.write_csv(&mut out).expect_err("absurd");
        assert!(out.is_empty() && e.to_string().contains("column `x [m]` reaches -2.5e300"), "{e}");
    }
}
