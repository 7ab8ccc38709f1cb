//! A small gzip (RFC 1952) / DEFLATE (RFC 1951) decoder, enough to read
//! `/proc/config.gz` (CONFIG_IKCONFIG_PROC) without another crate. It
//! follows zlib's `contrib/puff`: canonical Huffman codes decoded bit by
//! bit, which is slow but a kernel config is only ~100 KiB.

/// Bits of a DEFLATE stream, least significant bit first.
struct Bits<'a> {
    data: &'a [u8],
    pos: usize,
    buf: u64,
    count: u32,
}

impl<'a> Bits<'a> {
    fn new(data: &'a [u8]) -> Self {
        Bits { data, pos: 0, buf: 0, count: 0 }
    }

    /// The next `n` (≤ 32) bits as a number.
    fn take(&mut self, n: u32) -> Result<u32, String> {
        while self.count < n {
            let byte = *self.data.get(self.pos).ok_or("gzip: stream ends early")?;
            self.pos += 1;
            self.buf |= (byte as u64) << self.count;
            self.count += 8;
        }
        let v = (self.buf & ((1u64 << n) - 1)) as u32;
        self.buf >>= n;
        self.count -= n;
        Ok(v)
    }

    /// Drops the bits left in the current byte (stored blocks start on a byte).
    fn align(&mut self) {
        self.buf = 0;
        self.count = 0;
    }

    fn bytes(&mut self, n: usize) -> Result<&'a [u8], String> {
        let s = self.data.get(self.pos..self.pos + n).ok_or("gzip: stored block ends early")?;
        self.pos += n;
        Ok(s)
    }
}

/// A canonical Huffman code: how many codes have each length, and the
/// symbols in code order.
struct Huffman {
    counts: [u16; 16],
    symbols: Vec<u16>,
}

impl Huffman {
    fn new(lengths: &[u8]) -> Result<Huffman, String> {
        let mut counts = [0u16; 16];
        for &l in lengths {
            counts[l as usize] += 1;
        }
        let mut offs = [0u16; 16];
        for len in 1..15 {
            offs[len + 1] = offs[len] + counts[len];
        }
        let mut symbols = vec![0u16; lengths.len()];
        for (sym, &l) in lengths.iter().enumerate() {
            if l != 0 {
                symbols[offs[l as usize] as usize] = sym as u16;
                offs[l as usize] += 1;
            }
        }
        Ok(Huffman { counts, symbols })
    }

    fn decode(&self, bits: &mut Bits) -> Result<u16, String> {
        let (mut code, mut first, mut index) = (0i32, 0i32, 0i32);
        for len in 1..16 {
            code |= bits.take(1)? as i32;
            let count = self.counts[len] as i32;
            if code - count < first {
                return Ok(self.symbols[(index + (code - first)) as usize]);
            }
            index += count;
            first = (first + count) << 1;
            code <<= 1;
        }
        Err("gzip: bad Huffman code".into())
    }
}

const LEN_BASE: [u16; 29] = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258];
const LEN_EXTRA: [u8; 29] = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
const DIST_BASE: [u16; 30] =
    [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577];
const DIST_EXTRA: [u8; 30] = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13];

/// Decodes one block's literals and matches until the end-of-block code.
fn codes(bits: &mut Bits, out: &mut Vec<u8>, lit: &Huffman, dist: &Huffman) -> Result<(), String> {
    loop {
        let sym = lit.decode(bits)? as usize;
        match sym {
            0..=255 => out.push(sym as u8),
            256 => return Ok(()),
            257..=285 => {
                let i = sym - 257;
                let len = LEN_BASE[i] as usize + bits.take(LEN_EXTRA[i] as u32)? as usize;
                let d = dist.decode(bits)? as usize;
                if d >= 30 {
                    return Err("gzip: bad distance code".into());
                }
                let back = DIST_BASE[d] as usize + bits.take(DIST_EXTRA[d] as u32)? as usize;
                if back > out.len() {
                    return Err("gzip: distance too far back".into());
                }
                let start = out.len() - back;
                for k in 0..len {
                    out.push(out[start + k]);
                }
            }
            _ => return Err("gzip: bad literal/length code".into()),
        }
    }
}

fn fixed_tables() -> Result<(Huffman, Huffman), String> {
    let mut l = [0u8; 288];
    l[..144].fill(8);
    l[144..256].fill(9);
    l[256..280].fill(7);
    l[280..].fill(8);
    Ok((Huffman::new(&l)?, Huffman::new(&[5u8; 30])?))
}

/// Reads the code length codes and the two tables of a dynamic block.
fn dynamic_tables(bits: &mut Bits) -> Result<(Huffman, Huffman), String> {
    const ORDER: [usize; 19] = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];
    let nlen = bits.take(5)? as usize + 257;
    let ndist = bits.take(5)? as usize + 1;
    let ncode = bits.take(4)? as usize + 4;
    let mut cl = [0u8; 19];
    for &o in &ORDER[..ncode] {
        cl[o] = bits.take(3)? as u8;
    }
    let clh = Huffman::new(&cl)?;
    let mut lengths = Vec::with_capacity(nlen + ndist);
    while lengths.len() < nlen + ndist {
        let sym = clh.decode(bits)?;
        let (value, repeat) = match sym {
            0..=15 => (sym as u8, 1),
            16 => (*lengths.last().ok_or("gzip: repeat with no length")?, 3 + bits.take(2)?),
            17 => (0, 3 + bits.take(3)?),
            _ => (0, 11 + bits.take(7)?),
        };
        lengths.extend(std::iter::repeat_n(value, repeat as usize));
    }
    if lengths.len() != nlen + ndist {
        return Err("gzip: too many code lengths".into());
    }
    Ok((Huffman::new(&lengths[..nlen])?, Huffman::new(&lengths[nlen..])?))
}

fn stored(bits: &mut Bits, out: &mut Vec<u8>) -> Result<(), String> {
    bits.align();
    let hdr = bits.bytes(4)?;
    let len = u16::from_le_bytes([hdr[0], hdr[1]]);
    let nlen = u16::from_le_bytes([hdr[2], hdr[3]]);
    if len != !nlen {
        return Err("gzip: stored block length check failed".into());
    }
    out.extend_from_slice(bits.bytes(len as usize)?);
    Ok(())
}

/// Decodes a raw DEFLATE stream; returns the output and the bytes consumed.
pub fn inflate(data: &[u8]) -> Result<(Vec<u8>, usize), String> {
    let mut bits = Bits::new(data);
    let mut out = Vec::new();
    loop {
        let last = bits.take(1)? == 1;
        match bits.take(2)? {
            0 => stored(&mut bits, &mut out)?,
            1 => {
                let (l, d) = fixed_tables()?;
                codes(&mut bits, &mut out, &l, &d)?;
            }
            2 => {
                let (l, d) = dynamic_tables(&mut bits)?;
                codes(&mut bits, &mut out, &l, &d)?;
            }
            _ => return Err("gzip: bad block type".into()),
        }
        if last {
            return Ok((out, bits.pos));
        }
    }
}

/// CRC-32 (IEEE), bit by bit.
fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = if crc & 1 != 0 { (crc >> 1) ^ 0xedb8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

/// Length of a gzip member header (RFC 1952 §2.3).
fn header_len(data: &[u8]) -> Result<usize, String> {
    if data.len() < 18 || data[0] != 0x1f || data[1] != 0x8b || data[2] != 8 {
        return Err("not a gzip (deflate) file".into());
    }
    let flags = data[3];
    let mut pos = 10;
    if flags & 4 != 0 {
        let xlen = u16::from_le_bytes([data[pos], *data.get(pos + 1).ok_or("gzip: short header")?]) as usize;
        pos += 2 + xlen;
    }
    for bit in [8u8, 16] {
        if flags & bit != 0 {
            let end = data.get(pos..).and_then(|s| s.iter().position(|&b| b == 0)).ok_or("gzip: unterminated header string")?;
            pos += end + 1;
        }
    }
    if flags & 2 != 0 {
        pos += 2;
    }
    Ok(pos)
}

/// Decompresses a single-member gzip file and checks its CRC and length.
pub fn gunzip(data: &[u8]) -> Result<Vec<u8>, String> {
    let start = header_len(data)?;
    let (out, used) = inflate(data.get(start..).ok_or("gzip: short header")?)?;
    let trailer = data.get(start + used..start + used + 8).ok_or("gzip: missing trailer")?;
    let crc = u32::from_le_bytes(trailer[..4].try_into().unwrap());
    let size = u32::from_le_bytes(trailer[4..].try_into().unwrap());
    if crc != crc32(&out) || size != out.len() as u32 {
        return Err("gzip: CRC or length mismatch".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc_of_known_string() {
        assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
    }

    /// `printf 'hello hello hello\n' | gzip -n -9`.
    #[test]
    fn small_member() {
        let gz = [
            0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0x57, 0xc8, 0x40, 0x90, 0x5c, 0x00, 0x3b,
            0x7c, 0x8a, 0xdf, 0x12, 0x00, 0x00, 0x00,
        ];
        assert_eq!(gunzip(&gz).unwrap(), b"hello hello hello\n");
    }

    #[test]
    fn rejects_garbage_without_panicking() {
        assert!(gunzip(b"not gzip at all, definitely not").is_err());
        let mut gz = std::fs::read(crate::validate::test_data("host-6.18/proc/config.gz")).unwrap();
        gz.truncate(gz.len() / 2);
        assert!(gunzip(&gz).is_err());
    }

    /// The real /proc/config.gz of the capture host.
    #[test]
    fn real_config_gz() {
        let gz = std::fs::read(crate::validate::test_data("host-6.18/proc/config.gz")).unwrap();
        let text = String::from_utf8(gunzip(&gz).unwrap()).unwrap();
        assert!(text.contains("\nCONFIG_HZ=250\n"), "{}", &text[..200]);
    }
}
