// typage (npm age-encryption 0.3.x), the independent age implementation tests/interop/typage.rs
// checks nexusq against. Usage, with the folder where `npm install age-encryption` ran:
//
//   node interop.mjs DIR keygen                       -> identity line, recipient line
//   node interop.mjs DIR encrypt [--armor] RCPT...    stdin -> stdout
//   node interop.mjs DIR decrypt [--armor] IDENTITY   stdin -> stdout
import { readFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [dir, cmd, ...rest] = process.argv.slice(2);
const age = await import(pathToFileURL(join(dir, "node_modules", "age-encryption", "dist", "index.js")));
const armor = rest[0] === "--armor";
const args = armor ? rest.slice(1) : rest;

function out(bytes) {
    let off = 0;
    while (off < bytes.length) off += writeSync(1, bytes, off, bytes.length - off);
}

if (cmd === "keygen") {
    const identity = await age.generateHybridIdentity();
    const recipient = await age.identityToRecipient(identity);
    out(new TextEncoder().encode(`${identity}\n${recipient}\n`));
} else if (cmd === "encrypt") {
    const e = new age.Encrypter();
    for (const r of args) e.addRecipient(r);
    const ct = await e.encrypt(readFileSync(0));
    out(armor ? new TextEncoder().encode(age.armor.encode(ct)) : ct);
} else if (cmd === "decrypt") {
    const d = new age.Decrypter();
    d.addIdentity(args[0]);
    let input = readFileSync(0);
    if (armor) input = age.armor.decode(input.toString("utf8"));
    out(await d.decrypt(input, "uint8array"));
} else {
    console.error(`unknown command ${cmd}`);
    process.exit(2);
}
