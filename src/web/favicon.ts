/**
 * The inbox's icon: a white star on the accent blue, and, when reviews are open, their count on a red
 * pill, so a tab among twenty says how much is waiting. An SVG for the pages (`/favicon.svg?open=12`, drawn
 * from the URL alone, so it can be cached and needs no login), and the plain mark as a real ICO for the
 * browsers and tools that ask for `/favicon.ico` on their own.
 */

const BLUE = [0x24, 0x56, 0xc8] as const;
/** White on this red is 6.5:1; the count stays legible at 16 px. */
const RED = '#b3261e';

/** The most a count shows; more reads "99+". */
export const MAX_SHOWN = 99;

/** The five-pointed star of the mark, on a 64-unit square: outer radius 24, inner 10, point up. */
function starPoints(cx: number, cy: number): Array<[number, number]> {
  const points: Array<[number, number]> = [];
  for (let i = 0; i < 10; i++) {
    const r = i % 2 === 0 ? 24 : 10;
    const angle = -Math.PI / 2 + (i * Math.PI) / 5;
    points.push([cx + r * Math.cos(angle), cy + r * Math.sin(angle)]);
  }
  return points;
}

const STAR = starPoints(32, 34);

/** The count as the icon writes it: "", "7", "42" or "99+". */
export function countLabel(open: number): string {
  if (!Number.isFinite(open) || open <= 0) return '';
  return open > MAX_SHOWN ? `${MAX_SHOWN}+` : String(Math.floor(open));
}

/** The SVG icon, with `open` drawn on it when there are any. Presentation attributes only: no style. */
export function faviconSvg(open = 0): string {
  const label = countLabel(open);
  const star = STAR.map(([x, y]) => `${x.toFixed(2)},${y.toFixed(2)}`).join(' ');
  const mark = `<rect width="64" height="64" rx="14" fill="rgb(${BLUE.join(',')})"/><polygon points="${star}" fill="#fff"/>`;
  if (!label) {
    return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">${mark}</svg>`;
  }
  const width = label.length === 1 ? 38 : label.length === 2 ? 50 : 64;
  const size = label.length === 3 ? 30 : 36;
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">${mark}<rect x="${64 - width}" y="24" width="${width}" height="40" rx="20" fill="${RED}"/><text x="${64 - width / 2}" y="56" font-family="Arial, Helvetica, sans-serif" font-size="${size}" font-weight="700" fill="#fff" text-anchor="middle">${label}</text></svg>`;
}

function insidePolygon(x: number, y: number, polygon: ReadonlyArray<[number, number]>): boolean {
  let inside = false;
  for (let i = 0, j = polygon.length - 1; i < polygon.length; j = i++) {
    const [xi, yi] = polygon[i] as [number, number];
    const [xj, yj] = polygon[j] as [number, number];
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

function insideRoundedSquare(x: number, y: number, size: number, radius: number): boolean {
  const cx = Math.min(Math.max(x, radius), size - radius);
  const cy = Math.min(Math.max(y, radius), size - radius);
  return (x - cx) ** 2 + (y - cy) ** 2 <= radius ** 2;
}

/**
 * The plain mark as a 32×32 ICO (one 32-bit BMP image), drawn on a 4×4 grid per pixel so its edges are
 * smooth: no image library for one small picture.
 */
export function faviconIco(): Buffer {
  const SIZE = 32;
  const SAMPLES = 4;
  const scale = 64 / SIZE;
  const pixels = Buffer.alloc(SIZE * SIZE * 4);
  for (let row = 0; row < SIZE; row++) {
    for (let col = 0; col < SIZE; col++) {
      let coverage = 0;
      let white = 0;
      for (let sy = 0; sy < SAMPLES; sy++) {
        for (let sx = 0; sx < SAMPLES; sx++) {
          const x = (col + (sx + 0.5) / SAMPLES) * scale;
          const y = (row + (sy + 0.5) / SAMPLES) * scale;
          if (!insideRoundedSquare(x, y, 64, 14)) continue;
          coverage++;
          if (insidePolygon(x, y, STAR)) white++;
        }
      }
      const n = SAMPLES * SAMPLES;
      const mix = (channel: number) =>
        coverage === 0 ? 0 : Math.round((channel * (coverage - white) + 255 * white) / coverage);
      // BMP rows run bottom-up, each pixel blue, green, red, alpha.
      const at = ((SIZE - 1 - row) * SIZE + col) * 4;
      pixels[at] = mix(BLUE[2]);
      pixels[at + 1] = mix(BLUE[1]);
      pixels[at + 2] = mix(BLUE[0]);
      pixels[at + 3] = Math.round((255 * coverage) / n);
    }
  }
  const header = Buffer.alloc(6 + 16 + 40);
  header.writeUInt16LE(0, 0); // reserved
  header.writeUInt16LE(1, 2); // type: icon
  header.writeUInt16LE(1, 4); // one image
  const mask = Buffer.alloc((SIZE * SIZE) / 8); // the AND mask: all 0, alpha decides
  const imageSize = 40 + pixels.length + mask.length;
  header.writeUInt8(SIZE, 6);
  header.writeUInt8(SIZE, 7);
  header.writeUInt8(0, 8); // no palette
  header.writeUInt8(0, 9);
  header.writeUInt16LE(1, 10); // colour planes
  header.writeUInt16LE(32, 12); // bits per pixel
  header.writeUInt32LE(imageSize, 14);
  header.writeUInt32LE(22, 18); // the image starts after this header and its one directory entry
  // BITMAPINFOHEADER: the height counts the colour image and the mask.
  header.writeUInt32LE(40, 22);
  header.writeInt32LE(SIZE, 26);
  header.writeInt32LE(SIZE * 2, 30);
  header.writeUInt16LE(1, 34);
  header.writeUInt16LE(32, 36);
  return Buffer.concat([header, pixels, mask]);
}
