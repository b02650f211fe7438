/**
 * Every property test of the suite runs under one seed: `FC_SEED` when set (to replay a CI run),
 * else a fresh one that the global setup prints at the start of the run and hands to every test
 * process. fast-check prints the seed, the path and the shrunk counterexample of a failing property;
 * `FC_SEED=<seed> npx vitest run <file>` replays it.
 */
import fc from 'fast-check';

const seed = Number(process.env['FC_SEED']);
if (Number.isSafeInteger(seed)) fc.configureGlobal({ seed });
