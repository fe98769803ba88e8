/**
 * LZHUF (Yoshizaki 1988): LZSS over a 2 KiB window with an adaptive Huffman
 * code for literals and match lengths and a fixed code for the upper bits of
 * match positions. This is the compression of FBB's compressed forwarding
 * (B and B1). Written from the algorithm; pure; no I/O.
 *
 * Stream layout (what FBB sends after the B1 CRC): the uncompressed length
 * as a 32-bit little-endian integer, then the code bits, MSB first, the last
 * byte zero-padded.
 *
 * The decoder treats its input as hostile: a declared length above the
 * caller's cap, a code that runs past the end of the input, or a match that
 * reaches past the declared length is a typed error, never a hang or a huge
 * allocation.
 */

const N = 2048; // ring buffer size (FBB uses 2 KiB, not the original 4 KiB)
const F = 60; // longest match
const THRESHOLD = 2; // a match must be longer than this to be coded as one
const NIL = N;
const N_CHAR = 256 - THRESHOLD + F; // literals 0..255, then lengths 3..60
const T = N_CHAR * 2 - 1; // size of the Huffman table
const R = T - 1; // root position
const MAX_FREQ = 0x8000; // rebuild the tree when the root's frequency reaches this

/** Bit lengths of the codes for the upper 6 bits of a match position. */
const P_LEN = new Uint8Array(64);
/** The codes themselves, left-aligned in a byte (canonical from P_LEN). */
const P_CODE = new Uint8Array(64);
/** Decoding: the upper 6 bits and code length for every leading byte. */
const D_CODE = new Uint8Array(256);
const D_LEN = new Uint8Array(256);
{
  const counts: Array<[number, number]> = [
    [3, 1],
    [4, 3],
    [5, 8],
    [6, 12],
    [7, 24],
    [8, 16],
  ];
  let i = 0;
  let code = 0;
  for (const [len, n] of counts) {
    for (let k = 0; k < n; k++, i++) {
      P_LEN[i] = len;
      P_CODE[i] = code;
      const span = 1 << (8 - len);
      D_CODE.fill(i, code, code + span);
      D_LEN.fill(len, code, code + span);
      code += span;
    }
  }
}

export class LzhufError extends Error {
  override name = "LzhufError";
  constructor(
    readonly code: "too_short" | "too_large" | "truncated" | "corrupt",
    message: string,
  ) {
    super(message);
  }
}

/** The adaptive Huffman tree shared by encoder and decoder. */
class Huffman {
  readonly freq = new Uint32Array(T + 1);
  /** parent of node i; for leaves, prnt[T + symbol] */
  readonly prnt = new Int32Array(T + N_CHAR);
  /** child of node i (son[i] and son[i] + 1), or T + symbol for a leaf */
  readonly son = new Int32Array(T);

  constructor() {
    const { freq, prnt, son } = this;
    for (let i = 0; i < N_CHAR; i++) {
      freq[i] = 1;
      son[i] = i + T;
      prnt[i + T] = i;
    }
    for (let i = 0, j = N_CHAR; j <= R; i += 2, j++) {
      freq[j] = freq[i]! + freq[i + 1]!;
      son[j] = i;
      prnt[i] = prnt[i + 1] = j;
    }
    freq[T] = 0xffff;
    prnt[R] = 0;
  }

  /** Halves every frequency and rebuilds the tree. */
  private reconst(): void {
    const { freq, prnt, son } = this;
    let j = 0;
    for (let i = 0; i < T; i++) {
      if (son[i]! >= T) {
        freq[j] = (freq[i]! + 1) >>> 1;
        son[j] = son[i]!;
        j++;
      }
    }
    for (let i = 0, j2 = N_CHAR; j2 < T; i += 2, j2++) {
      const f = (freq[i]! + freq[i + 1]!) >>> 0;
      let k = j2 - 1;
      while (f < freq[k]!) k--;
      k++;
      freq.copyWithin(k + 1, k, j2);
      freq[k] = f;
      son.copyWithin(k + 1, k, j2);
      son[k] = i;
    }
    for (let i = 0; i < T; i++) {
      const k = son[i]!;
      if (k >= T) prnt[k] = i;
      else prnt[k] = prnt[k + 1] = i;
    }
  }

  /** Counts one more occurrence of `c` and restores the sibling property. */
  update(c: number): void {
    const { freq, prnt, son } = this;
    if (freq[R] === MAX_FREQ) this.reconst();
    c = prnt[c + T]!;
    do {
      const k = ++freq[c]!;
      let l = c + 1;
      if (k > freq[l]!) {
        while (k > freq[++l]!);
        l--;
        freq[c] = freq[l]!;
        freq[l] = k;
        const i = son[c]!;
        prnt[i] = l;
        if (i < T) prnt[i + 1] = l;
        const j = son[l]!;
        son[l] = i;
        prnt[j] = c;
        if (j < T) prnt[j + 1] = c;
        son[c] = j;
        c = l;
      }
      c = prnt[c]!;
    } while (c !== 0);
  }
}

class BitWriter {
  private buf = new Uint8Array(256);
  private len = 0;
  private acc = 0;
  private nbits = 0;

  /** Appends the low `n` bits of `value`, most significant first (n <= 24). */
  write(value: number, n: number): void {
    this.acc = (this.acc << n) | (value & ((1 << n) - 1));
    this.nbits += n;
    while (this.nbits >= 8) {
      this.nbits -= 8;
      this.push((this.acc >>> this.nbits) & 0xff);
    }
    this.acc &= (1 << this.nbits) - 1;
  }

  private push(b: number): void {
    if (this.len === this.buf.length) {
      const bigger = new Uint8Array(this.buf.length * 2);
      bigger.set(this.buf);
      this.buf = bigger;
    }
    this.buf[this.len++] = b;
  }

  finish(): Uint8Array {
    if (this.nbits > 0) this.push((this.acc << (8 - this.nbits)) & 0xff);
    this.nbits = 0;
    return this.buf.subarray(0, this.len);
  }
}

/** Compresses `input`: 4-byte little-endian length, then the code. */
export function lzhufEncode(input: Uint8Array): Uint8Array {
  const out = new BitWriter();
  const size = input.length;
  out.write(size & 0xff, 8);
  out.write((size >>> 8) & 0xff, 8);
  out.write((size >>> 16) & 0xff, 8);
  out.write((size >>> 24) & 0xff, 8);
  if (size === 0) return out.finish();

  const huff = new Huffman();
  const textBuf = new Uint8Array(N + F - 1);
  const lson = new Int32Array(N + 1);
  const rson = new Int32Array(N + 257);
  const dad = new Int32Array(N + 1);
  let matchPosition = 0;
  let matchLength = 0;

  for (let i = N + 1; i <= N + 256; i++) rson[i] = NIL;
  for (let i = 0; i < N; i++) dad[i] = NIL;

  const insertNode = (r: number) => {
    let cmp = 1;
    let p = N + 1 + textBuf[r]!;
    rson[r] = lson[r] = NIL;
    matchLength = 0;
    for (;;) {
      if (cmp >= 0) {
        if (rson[p] !== NIL) p = rson[p]!;
        else {
          rson[p] = r;
          dad[r] = p;
          return;
        }
      } else {
        if (lson[p] !== NIL) p = lson[p]!;
        else {
          lson[p] = r;
          dad[r] = p;
          return;
        }
      }
      let i = 1;
      for (; i < F; i++) {
        cmp = textBuf[r + i]! - textBuf[p + i]!;
        if (cmp !== 0) break;
      }
      if (i > THRESHOLD) {
        const pos = ((r - p) & (N - 1)) - 1;
        if (i > matchLength) {
          matchPosition = pos;
          matchLength = i;
          if (matchLength >= F) break;
        } else if (i === matchLength && pos < matchPosition) {
          matchPosition = pos;
        }
      }
    }
    // Replace p by r in the tree (same string, r is newer).
    dad[r] = dad[p]!;
    lson[r] = lson[p]!;
    rson[r] = rson[p]!;
    dad[lson[p]!] = r;
    dad[rson[p]!] = r;
    if (rson[dad[p]!] === p) rson[dad[p]!] = r;
    else lson[dad[p]!] = r;
    dad[p] = NIL;
  };

  const deleteNode = (p: number) => {
    if (dad[p] === NIL) return;
    let q: number;
    if (rson[p] === NIL) q = lson[p]!;
    else if (lson[p] === NIL) q = rson[p]!;
    else {
      q = lson[p]!;
      if (rson[q] !== NIL) {
        do q = rson[q]!;
        while (rson[q] !== NIL);
        rson[dad[q]!] = lson[q]!;
        dad[lson[q]!] = dad[q]!;
        lson[q] = lson[p]!;
        dad[lson[p]!] = q;
      }
      rson[q] = rson[p]!;
      dad[rson[p]!] = q;
    }
    dad[q] = dad[p]!;
    if (rson[dad[p]!] === p) rson[dad[p]!] = q;
    else lson[dad[p]!] = q;
    dad[p] = NIL;
  };

  const encodeChar = (c: number) => {
    // Walk leaf to root collecting the branch bits (the leaf's bit ends up
    // lowest) and emit them root first. The 1988 code packed them into 16
    // bits and broke on deeper trees; the adaptive tree stays under 31 levels
    // (frequencies are halved at 0x8000).
    let code = 0;
    let len = 0;
    let k = huff.prnt[c + T]!;
    do {
      code |= (k & 1) << len;
      len++;
      k = huff.prnt[k]!;
    } while (k !== R);
    if (len > 24) {
      out.write(code >>> 16, len - 16);
      out.write(code & 0xffff, 16);
    } else out.write(code, len);
    huff.update(c);
  };

  const encodePosition = (c: number) => {
    const hi = c >>> 6;
    out.write(P_CODE[hi]! >>> (8 - P_LEN[hi]!), P_LEN[hi]!);
    out.write(c & 0x3f, 6);
  };

  let inPos = 0;
  let s = 0;
  let r = N - F;
  textBuf.fill(0x20, 0, r);
  let len = 0;
  for (; len < F && inPos < size; len++) textBuf[r + len] = input[inPos++]!;
  for (let i = 1; i <= F; i++) insertNode(r - i);
  insertNode(r);
  do {
    if (matchLength > len) matchLength = len;
    if (matchLength <= THRESHOLD) {
      matchLength = 1;
      encodeChar(textBuf[r]!);
    } else {
      encodeChar(255 - THRESHOLD + matchLength);
      encodePosition(matchPosition);
    }
    const last = matchLength;
    let i = 0;
    for (; i < last && inPos < size; i++) {
      const c = input[inPos++]!;
      deleteNode(s);
      textBuf[s] = c;
      if (s < F - 1) textBuf[s + N] = c;
      s = (s + 1) & (N - 1);
      r = (r + 1) & (N - 1);
      insertNode(r);
    }
    while (i++ < last) {
      deleteNode(s);
      s = (s + 1) & (N - 1);
      r = (r + 1) & (N - 1);
      if (--len) insertNode(r);
    }
  } while (len > 0);
  return out.finish();
}

/** The uncompressed length a compressed stream declares (its first 4 bytes). */
function lzhufDeclaredSize(data: Uint8Array): number {
  if (data.length < 4) throw new LzhufError("too_short", "compressed data shorter than its 4-byte length");
  return (data[0]! | (data[1]! << 8) | (data[2]! << 16) | (data[3]! << 24)) >>> 0;
}

/**
 * Decompresses a stream made by lzhufEncode (or FBB). Refuses a declared size
 * above `maxSize` before doing any work.
 */
export function lzhufDecode(data: Uint8Array, maxSize: number): Uint8Array {
  const size = lzhufDeclaredSize(data);
  if (size > maxSize) throw new LzhufError("too_large", `compressed message declares ${size} bytes, more than the ${maxSize} allowed`);
  const out = new Uint8Array(size);
  if (size === 0) return out;

  let pos = 4; // next input byte
  let acc = 0; // bits not yet consumed, right-aligned
  let nbits = 0;
  const bit = (): number => {
    if (nbits === 0) {
      if (pos >= data.length) throw new LzhufError("truncated", "compressed data ends in the middle of a code");
      acc = data[pos++]!;
      nbits = 8;
    }
    nbits--;
    return (acc >>> nbits) & 1;
  };
  const byte = (): number => {
    let v = 0;
    for (let i = 0; i < 8; i++) v = (v << 1) | bit();
    return v;
  };

  const huff = new Huffman();
  const { son } = huff;
  const textBuf = new Uint8Array(N);
  textBuf.fill(0x20, 0, N - F);
  let r = N - F;
  let count = 0;
  while (count < size) {
    let c = son[R]!;
    while (c < T) c = son[c + bit()]!;
    c -= T;
    huff.update(c);
    if (c < 256) {
      out[count++] = c;
      textBuf[r] = c;
      r = (r + 1) & (N - 1);
    } else {
      const first = byte();
      let j = D_LEN[first]! - 2;
      let low = first;
      while (j-- > 0) low = (low << 1) | bit();
      const position = (D_CODE[first]! << 6) | (low & 0x3f);
      const start = (r - position - 1) & (N - 1);
      const length = c - 255 + THRESHOLD;
      if (count + length > size) throw new LzhufError("corrupt", "compressed data runs past its declared length");
      for (let k = 0; k < length; k++) {
        const b = textBuf[(start + k) & (N - 1)]!;
        out[count++] = b;
        textBuf[r] = b;
        r = (r + 1) & (N - 1);
      }
    }
  }
  return out;
}
