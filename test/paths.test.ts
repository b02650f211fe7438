/**
 * Default folders: a checkout keeps <checkout>/models and <checkout>/.cache; an installed package uses the
 * user-level folder ($SKILLRET_HOME, else $XDG_CACHE_HOME/skillret-eval, else ~/.cache/skillret-eval).
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { insideInstalledPackage, isCheckout, packageRoot, pathDefaults, userHome } from '../src/util/paths.js';

describe('userHome', () => {
  it('is $SKILLRET_HOME, else $XDG_CACHE_HOME/skillret-eval, else ~/.cache/skillret-eval', () => {
    expect(userHome({ SKILLRET_HOME: '/h/s', XDG_CACHE_HOME: '/x' })).toBe('/h/s');
    expect(userHome({ XDG_CACHE_HOME: '/x/cache' })).toBe('/x/cache/skillret-eval');
    expect(userHome({})).toBe(join(homedir(), '.cache', 'skillret-eval'));
  });
  it('ignores a relative XDG_CACHE_HOME (as the XDG spec says) and resolves a relative SKILLRET_HOME', () => {
    expect(userHome({ XDG_CACHE_HOME: 'rel/cache' })).toBe(join(homedir(), '.cache', 'skillret-eval'));
    expect(userHome({ SKILLRET_HOME: 'rel' })).toBe(resolve('rel'));
  });
});

describe('pathDefaults', () => {
  it('in a checkout: <checkout>/models and <checkout>/.cache, whatever XDG_CACHE_HOME says', () => {
    expect(pathDefaults({ XDG_CACHE_HOME: '/x' }, '/repo')).toEqual({ models: '/repo/models', cache: '/repo/.cache' });
  });
  it('installed: under the user-level folder', () => {
    expect(pathDefaults({ XDG_CACHE_HOME: '/x' }, null)).toEqual({ models: '/x/skillret-eval/models', cache: '/x/skillret-eval/cache' });
    expect(pathDefaults({}, null)).toEqual({
      models: join(homedir(), '.cache', 'skillret-eval', 'models'),
      cache: join(homedir(), '.cache', 'skillret-eval', 'cache'),
    });
  });
  it('an explicit $SKILLRET_HOME wins in a checkout too', () => {
    expect(pathDefaults({ SKILLRET_HOME: '/h' }, '/repo')).toEqual({ models: '/h/models', cache: '/h/cache' });
  });
  it('$SKILLRET_MODELS_DIR and $SKILLRET_CACHE_DIR override one folder each', () => {
    expect(pathDefaults({ SKILLRET_MODELS_DIR: '/m' }, '/repo')).toEqual({ models: '/m', cache: '/repo/.cache' });
    expect(pathDefaults({ SKILLRET_CACHE_DIR: '/c', SKILLRET_HOME: '/h' }, null)).toEqual({ models: '/h/models', cache: '/c' });
  });
});

describe('this checkout', () => {
  it('is detected as a checkout, so nothing counts as inside an installed package', () => {
    expect(isCheckout()).toBe(true);
    expect(insideInstalledPackage(join(packageRoot(), 'results', 'x'))).toBe(false);
  });
});
