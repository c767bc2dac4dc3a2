// Reads a JSON list of Mermaid flowchart texts on stdin; writes, for each, whether Mermaid parses it
// and the labels of its nodes and edges as Mermaid hands them to HTML (entity codes decoded the way
// mermaid.render does: encodeEntities before parsing, decodeEntities after), as JSON on stdout.
import { JSDOM } from "jsdom";

const dom = new JSDOM("<!doctype html><html><body></body></html>");
globalThis.window = dom.window;
globalThis.document = dom.window.document;
globalThis.DOMParser = dom.window.DOMParser;
globalThis.Element = dom.window.Element;
const { default: mermaid } = await import("mermaid");
mermaid.initialize({ startOnLoad: false });

// mermaid/src/utils.ts encodeEntities / decodeEntities (not exported): copied verbatim
function encodeEntities(text) {
  let txt = text;
  txt = txt.replace(/style.*:\S*#.*;/g, (s) => s.substring(0, s.length - 1));
  txt = txt.replace(/classDef.*:\S*#.*;/g, (s) => s.substring(0, s.length - 1));
  txt = txt.replace(/#\w+;/g, (s) => {
    const innerTxt = s.substring(1, s.length - 1);
    return /^\+?\d+$/.test(innerTxt) ? "ﬂ°°" + innerTxt + "¶ß" : "ﬂ°" + innerTxt + "¶ß";
  });
  return txt;
}
const decodeEntities = (t) => t.replace(/ﬂ°°/g, "&#").replace(/ﬂ°/g, "&").replace(/¶ß/g, ";");

const chunks = [];
for await (const c of process.stdin) chunks.push(c);
const out = [];
for (const text of JSON.parse(Buffer.concat(chunks).toString("utf8"))) {
  try {
    await mermaid.parse(text); // the whole pipeline: front matter, directives, comments, grammar
    const cleaned = text.replace(/\r\n?/g, "\n");
    const d = await mermaid.mermaidAPI.getDiagramFromText(encodeEntities(cleaned));
    const nodes = {};
    for (const [id, v] of d.db.getVertices()) nodes[id] = decodeEntities(v.text);
    const edges = d.db.getEdges().map((e) => [e.start, e.end, decodeEntities(e.text)]);
    out.push({ ok: true, nodes, edges });
  } catch (err) {
    out.push({ ok: false, error: String(err && err.message ? err.message : err).split("\n")[0] });
  }
}
process.stdout.write(JSON.stringify(out));
