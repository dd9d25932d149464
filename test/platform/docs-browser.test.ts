// /docs in a real browser (Debian's chromium driven by playwright-core): a caller authorizes with an API key,
// opens the version-file upload, picks a file with the file picker, executes, and sees 201. This is what the
// multipart requestBody in the document (src/core/http/openapi-multipart.ts) is for. CI installs chromium; a
// machine without it fails here rather than skipping, so the check cannot silently vanish.
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../helpers/factories.js';
import type { TestUser } from '../helpers/factories.js';
import { createResource } from '../resources/helpers.js';
import { createVersion } from '../versions/helpers.js';
import { listeningApp } from '../clients/helpers.js';
import type { ListeningApp } from '../clients/helpers.js';

const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

let t: ListeningApp;
let browser: Browser;
let user: TestUser;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} is missing: install Debian's chromium (apt-get install chromium) or set CHROMIUM_PATH`,
    );
  }
  [t, browser] = await Promise.all([
    listeningApp(),
    chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] }),
  ]);
  user = await createUser(t.app);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('/docs in Chromium', () => {
  it('uploads a version file with "Try it out" and the file picker, and shows 201', async () => {
    const resourceId = (await createResource(t.app, user)).id;
    const versionId = (await createVersion(t.app, user, resourceId)).id;
    const page = await browser.newPage();
    page.setDefaultTimeout(60_000);
    page.setDefaultNavigationTimeout(150_000);
    try {
      // Deep link (swagger-ui's deepLinking is on): the page scrolls to the operation and opens it.
      await page.goto(`${t.baseUrl}/docs#/versions/uploadVersionFile`);
      // Loading swagger-ui and laying out the operations of a large document take seconds on an idle machine and
      // over a minute on a loaded 2-core one: those waits are long, the steps after them short.
      const operation = page.locator('#operations-versions-uploadVersionFile');
      await operation.waitFor({ timeout: 150_000 });

      await page.locator('.auth-wrapper .authorize').click();
      const apiKey = page.locator('.auth-container').filter({ hasText: 'x-api-key' });
      await apiKey.locator('input').fill(user.apiKey);
      await apiKey.locator('button.authorize').click();
      await page.locator('.dialog-ux .close-modal').click();

      // The modal scrolled the page to the top, and swagger-ui lays out only the tags near the viewport: scroll
      // down step by step until the operation is laid out again (a bounded number of steps).
      for (let step = 0; step < 200 && !(await operation.isVisible()); step += 1) {
        await page.mouse.wheel(0, 600);
        await page.waitForTimeout(50);
      }
      await operation.scrollIntoViewIfNeeded();
      if (!(await operation.evaluate((block) => block.classList.contains('is-open')))) {
        await operation.locator('.opblock-summary').click();
      }
      await operation.locator('.try-out__btn').click();
      await operation.locator('tr[data-param-name="resourceId"] input').fill(resourceId);
      await operation.locator('tr[data-param-name="versionId"] input').fill(versionId);
      await operation.locator('input[type="file"]').setInputFiles({
        name: 'from-docs.jar',
        mimeType: 'application/java-archive',
        buffer: Buffer.from('uploaded from /docs\n'),
      });
      await operation.locator('button.execute').click();

      const status = operation.locator('.live-responses-table tr.response .response-col_status').first();
      await expect.poll(async () => (await status.textContent())?.trim(), { timeout: 60_000 }).toBe('201');
      await expect
        .poll(async () => operation.locator('.live-responses-table .microlight').first().textContent())
        .toContain('from-docs.jar');
    } finally {
      await page.close();
    }

    const version = await t.app.inject({
      method: 'GET',
      url: `/resources/${resourceId}/versions/${versionId}`,
      headers: user.headers,
    });
    expect(version.json()).toMatchObject({ files: [{ fileName: 'from-docs.jar', fileSize: 20 }] });
  }, 240_000);
});
