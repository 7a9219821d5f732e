//! A ZIP archive of stored (uncompressed) entries, as FMI's container format allows: local
//! headers, the central directory and its end record (APPNOTE 6.3, no ZIP64), every date fixed
//! at 1980-01-01 so that the archive is a function of its entries.

/// MS-DOS date of 1980-01-01 (the format's epoch), time 00:00.
const DOS_DATE: u16 = (1 << 5) | 1;
/// General-purpose flag: names are UTF-8.
const UTF8: u16 = 1 << 11;

fn u16le(out: &mut Vec<u8>, x: u16) {
    out.extend_from_slice(&x.to_le_bytes());
}

fn u32le(out: &mut Vec<u8>, x: u32) {
    out.extend_from_slice(&x.to_le_bytes());
}

/// The archive of `entries` (`name`, bytes), in order; refused past ZIP's 4 GiB and 65535
/// entries.
pub fn stored(entries: &[(String, Vec<u8>)]) -> Result<Vec<u8>, String> {
    let too_big = || "the archive would exceed 4 GiB or 65535 entries (ZIP without ZIP64)".to_string();
    let count = u16::try_from(entries.len()).map_err(|_| too_big())?;
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, data) in entries {
        let offset = u32::try_from(out.len()).map_err(|_| too_big())?;
        let size = u32::try_from(data.len()).map_err(|_| too_big())?;
        let name_len = u16::try_from(name.len()).map_err(|_| too_big())?;
        let crc = crc32fast::hash(data);
        // Local file header.
        u32le(&mut out, 0x0403_4b50);
        for x in [20, UTF8, 0, 0, DOS_DATE] {
            u16le(&mut out, x);
        }
        for x in [crc, size, size] {
            u32le(&mut out, x);
        }
        u16le(&mut out, name_len);
        u16le(&mut out, 0);
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(data);
        // Its central-directory record.
        u32le(&mut central, 0x0201_4b50);
        for x in [20, 20, UTF8, 0, 0, DOS_DATE] {
            u16le(&mut central, x);
        }
        for x in [crc, size, size] {
            u32le(&mut central, x);
        }
        for x in [name_len, 0, 0, 0, 0] {
            u16le(&mut central, x);
        }
        u32le(&mut central, 0);
        u32le(&mut central, offset);
        central.extend_from_slice(name.as_bytes());
    }
    let at = u32::try_from(out.len()).map_err(|_| too_big())?;
    let size = u32::try_from(central.len()).map_err(|_| too_big())?;
    out.extend_from_slice(&central);
    u32le(&mut out, 0x0605_4b50);
    for x in [0, 0, count, count] {
        u16le(&mut out, x);
    }
    u32le(&mut out, size);
    u32le(&mut out, at);
    u16le(&mut out, 0);
    Ok(out)
}
