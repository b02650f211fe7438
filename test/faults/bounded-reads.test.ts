/**
 * Reads are bounded: a config, a skill id file or an official JSON run that is a device is refused
 * in one line (never read until memory runs out), one larger than the stated bound is refused
 * naming the bound, and a server whose answer never ends is cut off at MAX_ANSWER_BYTES.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/pipeline/config.js';
import { readSkillIdsFile } from '../../src/data/skill-filter.js';
import { readOfficialJson } from '../../src/formats/official-json.js';
import { MAX_ANSWER_BYTES, requestJson } from '../../src/remote/http.js';
import { MAX_CONFIG_BYTES } from '../../src/util/files.js';
import { userError } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'bounded-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The one-line UserError message `f` throws or rejects with (test/helpers/cli.ts). */
const userErrorOf = (f: () => unknown): Promise<string> => userError(Promise.resolve().then(f));

describe('bounded reads', () => {
  it('a device given as a config, a skill id file or a run file is refused in one line', async () => {
    expect(await userErrorOf(() => loadConfig('/dev/zero'))).toBe('/dev/zero: the config is not a file (a device or socket)');
    expect(await userErrorOf(() => readSkillIdsFile('/dev/zero'))).toBe('/dev/zero: the skill id file is not a file (a device or socket)');
    expect(await userErrorOf(() => readOfficialJson('/dev/zero'))).toBe('/dev/zero: the run file is not a file (a device or socket)');
    expect(await userErrorOf(() => loadConfig(dir))).toBe(`${dir}: the config is not a file (a folder)`);
  });

  it('a config larger than the bound is refused naming it', async () => {
    const big = join(dir, 'big.yaml');
    writeFileSync(big, Buffer.alloc(MAX_CONFIG_BYTES + 1, 0x23));
    expect(await userErrorOf(() => loadConfig(big))).toBe(`${big}: the config is ${MAX_CONFIG_BYTES + 1} bytes, more than the ${MAX_CONFIG_BYTES} this tool reads`);
  });

  it('a server whose answer never ends is cut off at the bound, in one line, without retries', async () => {
    let requests = 0;
    const chunk = Buffer.alloc(1 << 20, 0x20);
    const server: Server = createServer((_req, res) => {
      requests++;
      res.writeHead(200, { 'content-type': 'application/json' });
      const pump = () => {
        while (res.write(chunk)) if (res.destroyed) return;
      };
      res.on('drain', pump);
      res.on('close', () => res.off('drain', pump));
      pump();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/embed`;
      const m = await userErrorOf(() => requestJson({ label: 'retrievers.e.endpoint', timeoutS: 120, maxRetries: 3 }, 'POST', url, { inputs: ['x'] }));
      expect(m).toBe(`retrievers.e.endpoint: POST ${url}: the answer is more than ${MAX_ANSWER_BYTES} bytes (a server that never ends its answer?)`);
      expect(requests).toBe(1);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
