// Text of a PowerPoint 97-2003 presentation, from the records of its "PowerPoint Document" stream (MS-PPT): the
// text atoms of each slide's drawing and the outline text (SlideListWithText), one page per slide.
// Masters, notes and handouts are left out (their text is layout placeholders). No npm package reads .ppt and
// Debian's catppt misses the text of files saved by PowerPoint 2007 and later, so this walk is ours: it only reads
// record headers and text atoms, every length checked against its container, nesting bounded.

/** Record types (MS-PPT 2.13.24). */
const RT = {
  document: 0x03e8,
  slide: 0x03ee,
  notes: 0x03f0,
  slidePersistAtom: 0x03f3,
  mainMaster: 0x03f8,
  handout: 0x0fc9,
  slideListWithText: 0x0ff0,
  textCharsAtom: 0x0fa0,
  textBytesAtom: 0x0fa8,
} as const;
/** Containers whose text is not the presentation's own. */
const SKIPPED = new Set<number>([RT.notes, RT.mainMaster, RT.handout]);
/** SlideListWithText instance that lists the slides (1 lists masters, 2 notes). */
const SLIDES_INSTANCE = 0;
/** Containers nest a few levels deep in real files; deeper is a damaged or hostile stream. */
export const MAX_RECORD_DEPTH = 32;
const RECORD_HEADER_BYTES = 8;

export interface SlideText {
  /** 1-based, in the order the slides are stored. */
  slide: number;
  text: string;
}

/** Paragraphs of a text atom: \r ends a paragraph, \v breaks a line; slide-number placeholders ("*") are dropped. */
function atomText(raw: string): string | null {
  const text = raw.replace(/\r/g, '\n').replace(/\v/g, '\n').replace(/\u0000/g, '').trim();
  return text === '' || text === '*' ? null : text;
}

/**
 * Offset of the last top-level Document container: a file saved with "fast save" keeps the Document of every earlier
 * save before it, and only the last one is current (the persist directory of MS-PPT says the same for such files).
 */
function currentDocumentOffset(stream: Buffer): number {
  let current = -1;
  for (let at = 0; at + RECORD_HEADER_BYTES <= stream.length; ) {
    const next = at + RECORD_HEADER_BYTES + stream.readUInt32LE(at + 4);
    if (next > stream.length) break;
    if (stream.readUInt16LE(at + 2) === RT.document) current = at;
    at = next;
  }
  return current;
}

export function presentationSlides(stream: Buffer): SlideText[] {
  const slides: string[][] = [];
  const outline: string[][] = [];
  const document = currentDocumentOffset(stream);
  const walk = (start: number, end: number, depth: number, inSlide: string[] | null, inOutline: boolean): void => {
    if (depth > MAX_RECORD_DEPTH) return;
    let at = start;
    while (at + RECORD_HEADER_BYTES <= end) {
      const versionAndInstance = stream.readUInt16LE(at);
      const type = stream.readUInt16LE(at + 2);
      const length = stream.readUInt32LE(at + 4);
      const body = at + RECORD_HEADER_BYTES;
      const next = body + length;
      if (next > end) return; // a length past its container: the rest of this container is damaged
      if ((versionAndInstance & 0xf) === 0xf) {
        if (type === RT.document && at !== document) {
          // an earlier save's Document: superseded
        } else if (type === RT.slide) {
          const texts: string[] = [];
          slides.push(texts);
          walk(body, next, depth + 1, texts, false);
        } else if (type === RT.slideListWithText) {
          walk(body, next, depth + 1, null, versionAndInstance >> 4 === SLIDES_INSTANCE);
        } else if (!SKIPPED.has(type)) {
          walk(body, next, depth + 1, inSlide, inOutline);
        }
      } else if (type === RT.slidePersistAtom && inOutline) {
        outline.push([]);
      } else if (type === RT.textCharsAtom || type === RT.textBytesAtom) {
        const text = atomText(stream.toString(type === RT.textCharsAtom ? 'utf16le' : 'latin1', body, next));
        const target = inSlide ?? (inOutline ? outline.at(-1) : undefined);
        if (text !== null && target) target.push(text);
      }
      at = next;
    }
  };
  walk(0, stream.length, 0, null, false);
  // The outline lists the slides in presentation order; files of PowerPoint 2007 and later keep text in the slides'
  // drawings too (tables, text boxes), and some only there. Pages follow the outline; drawing text the outline does
  // not hold joins the slide of the same position when both count the same slides, else a page of its own.
  const lines = (texts: string[]) => texts.flatMap((text) => text.split('\n').map((line) => line.trim()));
  const pages = outline.map((texts) => [...texts]);
  const held = new Set(lines(outline.flat()));
  const aligned = slides.length === outline.length;
  slides.forEach((texts, index) => {
    const missing = texts.filter((text) => lines([text]).some((line) => line !== '' && !held.has(line)));
    if (missing.length === 0) return;
    if (aligned) pages[index].push(...missing);
    else pages.push(missing);
  });
  return pages.filter((texts) => texts.length > 0).map((texts, index) => ({ slide: index + 1, text: texts.join('\n\n') }));
}
