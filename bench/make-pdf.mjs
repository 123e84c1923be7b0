// A small PDF writer for the view benchmark and tests: N A4 pages of Helvetica text (one line
// per entry of `lines(n)`), optionally with a Standard security handler whose user password is
// not empty (pdf.js then asks for a password).
export function makePdf({ pages, lines = (n) => [`Page ${n}`], encrypted = false }) {
  const objects = [];
  const add = (body) => objects.push(body) ;
  add('<< /Type /Catalog /Pages 2 0 R >>');
  add(''); // pages, filled in below
  add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  const kids = [];
  for (let n = 1; n <= pages; n++) {
    const text = lines(n)
      .map((l, i) => `BT /F1 14 Tf 72 ${770 - i * 20} Td (${String(l).replace(/[()\\]/g, (c) => `\\${c}`)}) Tj ET`)
      .join('\n');
    add(`<< /Length ${Buffer.byteLength(text)} >>\nstream\n${text}\nendstream`);
    add(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> >> /Contents ${objects.length} 0 R >>`);
    kids.push(`${objects.length} 0 R`);
  }
  objects[1] = `<< /Type /Pages /Kids [${kids.join(' ')}] /Count ${pages} >>`;
  let encrypt = '';
  if (encrypted) {
    add(`<< /Filter /Standard /V 1 /R 2 /O <${'ab'.repeat(32)}> /U <${'cd'.repeat(32)}> /P -4 >>`);
    encrypt = ` /Encrypt ${objects.length} 0 R /ID [<${'01'.repeat(16)}> <${'01'.repeat(16)}>]`;
  }
  let out = '%PDF-1.4\n';
  const offsets = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out);
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R${encrypt} >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}
