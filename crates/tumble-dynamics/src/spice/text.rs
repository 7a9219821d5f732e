//! SPICE text kernels (LSK, text PCK, any `\begindata` block): `NAME = value`, `NAME = ( values
//! )`, `NAME += ...`, numbers with `D` or `E` exponents, quoted strings (`''` for a quote) and
//! `@` dates, as NAIF's "Kernel Required Reading" defines them.

use super::SpiceError;
use super::time::calendar_seconds;
use std::collections::HashMap;

/// One value of a kernel variable.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A number.
    Num(f64),
    /// A quoted string.
    Str(String),
    /// An `@` date: seconds past J2000 (2000-01-01 12:00:00) of its calendar, no leap seconds.
    Date(f64),
}

/// The variables of one or more text kernels, later assignments replacing earlier ones (`+=`
/// appends).
#[derive(Clone, Debug, Default)]
pub struct Pool {
    vars: HashMap<String, Vec<Value>>,
}

/// Longest variable name NAIF allows.
const MAX_NAME: usize = 32;

impl Pool {
    /// Reads the data blocks of `text` (from file `file`, for errors) into the pool.
    pub fn load(&mut self, file: &str, text: &str) -> Result<(), SpiceError> {
        let mut data = false;
        let mut pending = String::new();
        let mut start = 0;
        for (n, line) in text.lines().enumerate() {
            let t = line.trim();
            if t == "\\begindata" {
                data = true;
                continue;
            }
            if t == "\\begintext" {
                data = false;
                continue;
            }
            if !data {
                continue;
            }
            if pending.is_empty() {
                if t.is_empty() {
                    continue;
                }
                start = n + 1;
            }
            pending.push_str(line);
            pending.push('\n');
            if complete(&pending) {
                self.assign(&pending).map_err(|e| SpiceError::Kernel(format!("{file}:{start}: {e}")))?;
                pending.clear();
            }
        }
        if !pending.trim().is_empty() {
            return Err(SpiceError::Kernel(format!("{file}:{start}: an assignment without its closing ')'")));
        }
        Ok(())
    }

    fn assign(&mut self, s: &str) -> Result<(), String> {
        let (name, append, rest) = match s.find("+=") {
            Some(i) if !s[..i].contains('=') => (&s[..i], true, &s[i + 2..]),
            _ => {
                let i = s.find('=').ok_or("a data line that is not `NAME = value`")?;
                (&s[..i], false, &s[i + 1..])
            }
        };
        let name = name.trim();
        if name.is_empty() || name.len() > MAX_NAME || name.contains(char::is_whitespace) {
            return Err(format!("'{name}' is not a variable name (one word of at most {MAX_NAME} characters)"));
        }
        let values = values(rest.trim())?;
        let slot = self.vars.entry(name.to_string()).or_default();
        if !append {
            slot.clear();
        }
        slot.extend(values);
        Ok(())
    }

    /// The values of `name`, if assigned.
    pub fn get(&self, name: &str) -> Option<&[Value]> {
        self.vars.get(name).map(Vec::as_slice)
    }

    /// The numbers of `name` (dates as their seconds), or an error naming it.
    pub fn numbers(&self, name: &str) -> Result<Option<Vec<f64>>, SpiceError> {
        let Some(v) = self.get(name) else { return Ok(None) };
        v.iter()
            .map(|x| match x {
                Value::Num(f) | Value::Date(f) => Ok(*f),
                Value::Str(s) => Err(SpiceError::Kernel(format!("{name} holds the string '{s}' where numbers belong"))),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some)
    }
}

/// Whether an assignment's text is complete: no open parenthesis outside quotes.
fn complete(s: &str) -> bool {
    let (mut depth, mut quoted) = (0i32, false);
    for c in s.chars() {
        match c {
            '\'' => quoted = !quoted,
            '(' if !quoted => depth += 1,
            ')' if !quoted => depth -= 1,
            _ => {}
        }
    }
    depth <= 0 && !quoted
}

fn values(s: &str) -> Result<Vec<Value>, String> {
    let inner = match s.strip_prefix('(') {
        Some(r) => r.strip_suffix(')').ok_or("a list without its closing ')'")?,
        None => s,
    };
    let mut out = Vec::new();
    let mut chars = inner.char_indices().peekable();
    while let Some(&(i, c)) = chars.peek() {
        if c.is_whitespace() || c == ',' {
            chars.next();
        } else if c == '\'' {
            chars.next();
            let mut text = String::new();
            loop {
                match chars.next() {
                    Some((_, '\'')) if chars.peek().map(|p| p.1) == Some('\'') => {
                        chars.next();
                        text.push('\'');
                    }
                    Some((_, '\'')) => break,
                    Some((_, ch)) => text.push(ch),
                    None => return Err("a string without its closing quote".into()),
                }
            }
            out.push(Value::Str(text));
        } else {
            let mut end = inner.len();
            while let Some(&(j, ch)) = chars.peek() {
                if ch.is_whitespace() || ch == ',' {
                    end = j;
                    break;
                }
                chars.next();
            }
            out.push(token(&inner[i..end])?);
        }
    }
    Ok(out)
}

fn token(t: &str) -> Result<Value, String> {
    if let Some(d) = t.strip_prefix('@') {
        return calendar_seconds(d)
            .map(Value::Date)
            .ok_or_else(|| format!("'{t}' is not a date (@YYYY-MON-DD[/HH:MM:SS])"));
    }
    let f: f64 = t.replace(['D', 'd'], "E").parse().map_err(|_| format!("'{t}' is not a number"))?;
    if !f.is_finite() {
        return Err(format!("'{t}' is not a finite number"));
    }
    Ok(Value::Num(f))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_lists_strings_dates_and_appends() {
        let mut p = Pool::default();
        let k = "text ignored = 1\n\\begindata\nA = ( 1.5D2, -2E-1\n  3 )\nB = 'it''s'\nC = ( 1, @1972-JAN-1 )\nC += 4\n\\begintext\nD = 9\n";
        p.load("k.tpc", k).unwrap();
        assert_eq!(p.numbers("A").unwrap().unwrap(), vec![150.0, -0.2, 3.0]);
        assert_eq!(p.get("B").unwrap(), &[Value::Str("it's".into())]);
        let c = p.numbers("C").unwrap().unwrap();
        assert_eq!(c.len(), 3);
        assert_eq!(c[1], -(28.0 * 365.0 + 7.0) * 86400.0 - 43200.0);
        assert!(p.get("D").is_none());
    }

    #[test]
    fn names_the_line_of_a_bad_value() {
        let mut p = Pool::default();
        let e = p.load("k.tls", "\\begindata\n\nX = ( 1 2\nY = 3\n").unwrap_err().to_string();
        assert!(e.contains("k.tls:3"), "{e}");
        let e = p.load("k.tls", "\\begindata\nX = ( 1, two )\n").unwrap_err().to_string();
        assert!(e.contains("k.tls:2") && e.contains("'two' is not a number"), "{e}");
    }
}
