// The storage port's contract for one Client's aggregates, run against every adapter (SQLite and PostgreSQL)
// with the same tests: staging, activation, replacement and vetoes, the publication log a follower replays,
// the purge journal, chunk reads, running usage totals, retired-content cleanup, and Client isolation.

import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { STORE_ADAPTERS, generationInput, stopPostgres, textsOf, vector } from '../helpers/storage-adapters.ts';
import type { OpenedStore, StoreAdapter } from '../helpers/storage-adapters.ts';
import { PublicationPaused } from '../../src/domain/jobs.ts';

after(stopPostgres);

async function withStore(adapter: StoreAdapter, fn: (store: OpenedStore) => Promise<void>, options: { logRetained?: number } = {}): Promise<void> {
  const store = await adapter.open(options);
  try {
    await fn(store);
  } finally {
    await store.close();
  }
}

for (const adapter of STORE_ADAPTERS) {
  describe(`generations, publication log and purge journal: ${adapter.name}`, () => {
    test('a staged generation is invisible until activated; activation logs it and a follower loads it whole', async () => {
      await withStore(adapter, async ({ storage }) => {
        const client = storage.client('acme');
        const lanes = new Uint8Array([1, 2, 3, 250, 0, 7]);
        const staged = await client.generations.stage(generationInput('doc-1', ['first text', 'second text'], { jobId: 'job-1', custom: { region: 'north', pages: 2 }, lanes }));
        assert.equal(await client.generations.activeGeneration('doc-1', 'doc-1'), null);
        assert.deepEqual(await client.generations.servedGenerationIds(), []);
        assert.equal(await client.publicationLog.head(), 0);
        assert.equal(await client.generations.stagedGenerationOf('job-1'), staged);

        const activation = await client.generations.activateStaged(staged);
        assert.deepEqual(activation, { generation: staged, previousGeneration: null });
        assert.equal(await client.generations.stagedGenerationOf('job-1'), null);
        const active = (await client.generations.activeGeneration('doc-1', 'doc-1'))!;
        assert.equal(active.generation, staged);
        assert.equal(active.state, 'active');
        assert.equal(active.jobId, 'job-1');
        assert.equal(active.createdAt, '2024-05-01T10:00:00.000Z');
        assert.ok(!Number.isNaN(Date.parse(active.activatedAt!)), 'activation time recorded');
        assert.deepEqual(active.canonicalMetadata.custom, { region: 'north', pages: 2 });
        assert.deepEqual(active.entities.persons, ['Aminah binti Ali']);
        assert.equal(active.chunkCount, 2);
        assert.equal(active.unreadable, undefined);
        assert.deepEqual(await client.generations.servedGenerationIds(), [staged]);
        assert.equal(await client.generations.activeVersionCount(), 1);

        assert.equal(await client.publicationLog.head(), 1);
        const changes = await client.publicationLog.changesSince(0, 100);
        assert.equal(changes.head, 1);
        assert.equal(changes.floor, 1);
        assert.deepEqual(changes.entries, [{ seq: 1, kind: 'activate', documentId: 'doc-1', versionKey: 'doc-1', generation: staged }]);
        const served = changes.generations.get(staged)!;
        assert.deepEqual(Array.from(served.lanes!), Array.from(lanes), 'lane data comes back byte for byte');
        assert.equal(served.chunks, undefined, 'a generation with lane data is served without its chunks');
        assert.deepEqual(served.leaves, [
          { path: ['custom', 'region'], value: 'north', valueType: 'string' },
          { path: ['custom', 'pages'], value: 2, valueType: 'number' },
        ]);

        const loaded = (await client.generations.loadGeneration(staged))!;
        assert.equal(loaded.chunks.length, 2);
        assert.deepEqual(loaded.chunks.map((chunk) => [chunk.chunkIndex, chunk.page, chunk.pageLabel, chunk.text, chunk.language]), [
          [0, 1, 'i', 'first text', 'en'],
          [1, 2, null, 'second text', 'ms'],
        ]);
        assert.deepEqual(Array.from(loaded.chunks[1].vector), Array.from(vector(1.5)), 'vectors round-trip exactly');
        assert.deepEqual(loaded.chunks[1].entities.dates, ['2024-02-01']);
        assert.deepEqual((await client.generations.manifest(staged))!.manifest, { record_ids: 2, digest: 'd-doc-1' });
        assert.equal((await client.generations.activeManifest('doc-1', 'doc-1'))!.generation, staged);
        assert.equal(await client.generations.activeManifest('doc-1', 'other'), null);
      });
    });

    test('a replacement retires the previous generation and appends its own log entry; a follower sees only what is still active', async () => {
      await withStore(adapter, async ({ storage }) => {
        const generations = storage.client('acme').generations;
        const first = (await generations.stageAndActivate(generationInput('doc-1', ['one'])))!;
        const second = (await generations.stageAndActivate(generationInput('doc-1', ['one, revised', 'two'])))!;
        assert.equal(second.previousGeneration, first.generation);
        assert.ok(second.generation > first.generation, 'generation numbers grow');
        assert.equal((await generations.generation(first.generation))!.state, 'retired');
        assert.deepEqual((await generations.activeGenerationsOf('doc-1')).map((record) => record.generation), [second.generation]);
        const changes = await storage.client('acme').publicationLog.changesSince(0, 100);
        assert.deepEqual(changes.entries.map((entry) => [entry.seq, entry.generation]), [
          [1, first.generation],
          [2, second.generation],
        ]);
        assert.deepEqual([...changes.generations.keys()], [second.generation], 'the retired generation is not loaded');
        assert.deepEqual((await storage.client('acme').publicationLog.changesSince(1, 100)).entries.map((entry) => entry.seq), [2]);
        assert.deepEqual((await storage.client('acme').publicationLog.changesSince(2, 100)).entries, [], 'nothing after the head');
        assert.deepEqual((await storage.client('acme').publicationLog.changesSince(0, 1)).entries, [], 'too far behind: rebuild instead of replaying');
        // Whether entries after a position name a version (a status poll's catch-up is spared when none does).
        const log = storage.client('acme').publicationLog;
        await storage.client('acme').generations.stageAndActivate(generationInput('doc-2', ['elsewhere']));
        assert.equal(await log.touchedSince(1, 'doc-1', 'doc-1'), true);
        assert.equal(await log.touchedSince(2, 'doc-1', 'doc-1'), false, 'only doc-2 came after');
        assert.equal(await log.touchedSince(2, 'doc-2', 'doc-2'), true);
        assert.equal(await log.touchedSince(2, 'doc-1', 'other-version'), false);
      });
    });

    test('a vetoed activation writes nothing; a generation no longer staged is not activated again', async () => {
      await withStore(adapter, async ({ storage }) => {
        const generations = storage.client('acme').generations;
        const current = (await generations.stageAndActivate(generationInput('doc-1', ['current'])))!;
        let seen: number | null | undefined;
        const veto = (active: { generation: number } | null) => {
          seen = active?.generation ?? null;
          return false;
        };
        assert.equal(await generations.stageAndActivate(generationInput('doc-1', ['vetoed']), veto), null);
        assert.equal(seen, current.generation, 'the veto saw the current generation');
        const staged = await generations.stage(generationInput('doc-1', ['staged']));
        assert.equal(await generations.activateStaged(staged, veto), null);
        assert.equal((await generations.generation(staged))!.state, 'staged');
        assert.equal((await generations.activeGeneration('doc-1', 'doc-1'))!.generation, current.generation);
        assert.equal(await storage.client('acme').publicationLog.head(), 1, 'no entry for a vetoed activation');
        assert.ok(await generations.activateStaged(staged));
        assert.equal(await generations.activateStaged(staged), null, 'already active');
        await generations.discardStaged(current.generation);
        assert.equal((await generations.generation(current.generation))!.state, 'retired', 'discarding touches staged generations only');
        const abandoned = await generations.stage(generationInput('doc-1', ['abandoned'], { jobId: 'job-x' }));
        await generations.discardStaged(abandoned);
        assert.equal(await generations.generation(abandoned), null);
        assert.equal(await generations.stagedGenerationOf('job-x'), null);
      });
    });

    test('replacing several versions is all or nothing: one that moved meanwhile writes none of them', async () => {
      await withStore(adapter, async ({ storage }) => {
        const generations = storage.client('acme').generations;
        const a = (await generations.stageAndActivate(generationInput('doc-a', ['a'])))!;
        const b = (await generations.stageAndActivate(generationInput('doc-b', ['b'])))!;
        const moved = await generations.replaceGenerations([
          { input: generationInput('doc-a', ['a2']), expected: a.generation },
          { input: generationInput('doc-b', ['b2']), expected: b.generation - 1000 },
        ]);
        assert.equal(moved, null);
        assert.equal((await generations.activeGeneration('doc-a', 'doc-a'))!.generation, a.generation, 'the first replacement was rolled back');
        assert.equal(await storage.client('acme').publicationLog.head(), 2);
        const replaced = (await generations.replaceGenerations([
          { input: generationInput('doc-a', ['a2']), expected: a.generation },
          { input: generationInput('doc-c', ['c']), expected: null },
        ]))!;
        assert.deepEqual(replaced.map((result) => result.previousGeneration), [a.generation, null]);
        assert.equal(await storage.client('acme').publicationLog.head(), 4);
      });
    });

    test('a chunk\'s spreadsheet rows are stored with it and read back by every chunk read; other chunks have none', async () => {
      await withStore(adapter, async ({ storage }) => {
        const generations = storage.client('acme').generations;
        const input = generationInput('sheet-1', ['Sheet1 header', 'rows of the sheet', 'a comment']);
        input.chunks[0]!.rows = { first: 1, last: 1 };
        input.chunks[1]!.rows = { first: 3, last: 40 };
        const { generation } = (await generations.stageAndActivate(input))!;
        const texts = await generations.chunkTexts([0, 1, 2].map((chunkIndex) => ({ generation, chunkIndex })));
        assert.deepEqual(texts.map((stored) => stored?.rows), [{ first: 1, last: 1 }, { first: 3, last: 40 }, null]);
        assert.deepEqual((await generations.chunkRange(generation, 1, 2)).map((chunk) => chunk.rows ?? null), [{ first: 3, last: 40 }, null]);
        const loaded = (await generations.loadGeneration(generation))!;
        assert.deepEqual(loaded.chunks.map((chunk) => chunk.rows ?? null), [{ first: 1, last: 1 }, { first: 3, last: 40 }, null]);
        assert.ok(!('rows' in loaded.chunks[2]!), 'a chunk without rows reads as one without the key, as before rows were stored');
      });
    });

    test('chunk texts come in the order asked, null where gone; chunk ranges page in document order', async () => {
      await withStore(adapter, async ({ storage }) => {
        const generations = storage.client('acme').generations;
        const texts = Array.from({ length: 40 }, (_, index) => `chunk ${index} ünïcødé`);
        const { generation } = (await generations.stageAndActivate(generationInput('doc-1', texts)))!;
        const keys = [39, 0, 17, 99].map((chunkIndex) => ({ generation, chunkIndex }));
        // Each text comes with the language its chunk was indexed in (generationInput: the first English, the others Malay).
        assert.deepEqual(await generations.chunkTexts([...keys, { generation: generation + 1000, chunkIndex: 0 }]), [
          { text: 'chunk 39 ünïcødé', language: 'ms', rows: null },
          { text: 'chunk 0 ünïcødé', language: 'en', rows: null },
          { text: 'chunk 17 ünïcødé', language: 'ms', rows: null },
          null,
          null,
        ]);
        assert.deepEqual(await generations.chunkTexts([]), []);
        const many = Array.from({ length: 70 }, (_, index) => ({ generation, chunkIndex: index % 40 }));
        assert.deepEqual(textsOf(await generations.chunkTexts(many)), many.map((key) => texts[key.chunkIndex]), 'more keys than one batch');
        // Full-precision vectors, as staged (generationInput: vector(chunkIndex + 0.5)), in the order asked.
        const vectors = await generations.chunkVectors([...keys, { generation: generation + 1000, chunkIndex: 0 }]);
        assert.deepEqual(vectors.map((stored) => (stored ? [...stored] : null)), [[...vector(39.5)], [...vector(0.5)], [...vector(17.5)], null, null]);
        assert.deepEqual(await generations.chunkVectors([]), []);
        assert.deepEqual((await generations.chunkVectors(many)).map((stored) => stored![0]), many.map((key) => key.chunkIndex + 0.5), 'more keys than one batch');
        assert.deepEqual((await generations.chunkRange(generation, 10, 3)).map((chunk) => chunk.chunkIndex), [10, 11, 12]);
        assert.deepEqual(await generations.chunkRange(generation, 40, 5), []);
        // Every chunk's entities as the writer stored them (its JSON text), in document order.
        const entities = await generations.chunkEntities(generation);
        assert.deepEqual(entities.map((chunk) => chunk.chunkIndex), texts.map((_, index) => index));
        assert.deepEqual(entities.map((chunk) => chunk.entitiesJson), (await generations.chunkRange(generation, 0, 40)).map((chunk) => JSON.stringify(chunk.entities)));
        assert.deepEqual(JSON.parse(entities[3]!.entitiesJson).dates, ['2024-04-01']);
        assert.deepEqual(await generations.chunkEntities(generation + 1000), []);
      });
    });

    test('usage is kept as running totals through activation, replacement, a second version and a purge', async () => {
      await withStore(adapter, async ({ storage }) => {
        const client = storage.client('acme');
        const bytes = (texts: string[]) => texts.reduce((sum, text) => sum + Buffer.byteLength(text, 'utf8'), 0);
        const nobody = { documentId: 'none', versionKey: 'none' };
        assert.deepEqual(await client.generations.usage(nobody), { documents: 0, chunks: 0, textBytes: 0, documentPresent: false });
        await client.generations.stageAndActivate(generationInput('doc-1', ['ab', 'çd']));
        await client.generations.stage(generationInput('doc-2', ['staged only']));
        assert.deepEqual(await client.generations.usage(nobody), { documents: 1, chunks: 2, textBytes: bytes(['ab', 'çd']), documentPresent: false });
        await client.generations.stageAndActivate(generationInput('doc-1', ['replaced']));
        await client.generations.stageAndActivate(generationInput('doc-1', ['v2 one', 'v2 two', 'v2 three'], { versionKey: 'v2' }));
        const all = { documents: 1, chunks: 4, textBytes: bytes(['replaced', 'v2 one', 'v2 two', 'v2 three']) };
        assert.deepEqual(await client.generations.usage(nobody), { ...all, documentPresent: false });
        // Without one version of doc-1 the document is still present through the other.
        assert.deepEqual(await client.generations.usage({ documentId: 'doc-1', versionKey: 'doc-1' }), {
          documents: 1,
          chunks: 3,
          textBytes: bytes(['v2 one', 'v2 two', 'v2 three']),
          documentPresent: true,
        });
        await client.purges.begin('doc-1', ['v2']);
        await client.purges.purgeVersion('doc-1', 'v2');
        assert.deepEqual(await client.generations.usage({ documentId: 'doc-1', versionKey: 'doc-1' }), { documents: 0, chunks: 0, textBytes: 0, documentPresent: false });
        assert.deepEqual(await client.generations.usage(nobody), { documents: 1, chunks: 1, textBytes: bytes(['replaced']), documentPresent: false });
      });
    });

    test('a purge hides its versions at once (a removal in the log), resumes from the journal and leaves nothing behind', async () => {
      await withStore(adapter, async ({ storage }) => {
        const client = storage.client('acme');
        const kept = (await client.generations.stageAndActivate(generationInput('doc-1', ['kept'], { versionKey: 'keep' })))!;
        const first = (await client.generations.stageAndActivate(generationInput('doc-1', ['gone'], { versionKey: 'drop' })))!;
        const gone = (await client.generations.stageAndActivate(generationInput('doc-1', ['gone, two', 'three'], { versionKey: 'drop' })))!;
        await client.purges.begin('doc-1', ['drop']);
        await client.purges.begin('doc-1', ['drop']);
        assert.deepEqual(await client.purges.open('doc-1'), ['drop']);
        assert.deepEqual(await client.generations.servedGenerationIds(), [kept.generation], 'hidden before anything is removed');
        assert.equal(await client.generations.activeVersionCount(), 1);
        assert.deepEqual((await client.generations.activeGenerationsAfter(null, 10)).map((loaded) => loaded.versionKey), ['keep']);
        const entries = (await client.publicationLog.changesSince(3, 100)).entries;
        assert.deepEqual(entries.map((entry) => [entry.kind, entry.versionKey, entry.generation]), [
          ['remove', 'drop', null],
          ['remove', 'drop', null],
        ]);
        assert.equal(await client.purges.remainingRecords('doc-1', 'drop'), 2);
        assert.equal(await client.purges.purgeVersion('doc-1', 'drop'), 2, "the chunks the version served (its active generation's), not the retired one's");
        assert.equal(await client.purges.remainingRecords('doc-1', 'drop'), 0);
        assert.deepEqual(await client.purges.open('doc-1'), []);
        assert.equal(await client.generations.generation(first.generation), null);
        assert.deepEqual(await client.generations.chunkTexts([{ generation: gone.generation, chunkIndex: 0 }]), [null]);
        assert.deepEqual((await client.generations.activeGenerationsOf('doc-1')).map((record) => record.versionKey), ['keep']);
      });
    });

    test('a scan of active versions resumes after its cursor in identity order and counts what is unindexed', async () => {
      await withStore(adapter, async ({ storage }) => {
        const generations = storage.client('acme').generations;
        for (const [documentId, versionKey] of [['b', 'b'], ['a', 'z'], ['a', 'a'], ['B', 'B'], ['c', '']]) {
          await generations.stageAndActivate(generationInput(documentId, [`${documentId}/${versionKey}`], { versionKey }));
        }
        const identities = async (cursor: { documentId: string; versionKey: string } | null, limit: number) =>
          (await generations.activeGenerationsAfter(cursor, limit)).map((loaded) => `${loaded.documentId}/${loaded.versionKey}`);
        // Bytewise order, as SQLite compares: capitals first.
        assert.deepEqual(await identities(null, 2), ['B/B', 'a/a']);
        assert.deepEqual(await identities({ documentId: 'a', versionKey: 'a' }, 10), ['a/z', 'b/b', 'c/']);
        assert.equal((await generations.activeGenerationsAfter(null, 1))[0].chunks[0].text, 'B/B', 'loaded whole');
        assert.equal(await generations.hasUnindexedLeaves(), false);
        await generations.stageAndActivate(generationInput('d', ['imported'], { leavesIndexed: false }));
        assert.equal(await generations.hasUnindexedLeaves(), true);
        assert.equal((await generations.activeGeneration('d', 'd'))!.leavesIndexed, false);
        const served = await generations.loadActiveGenerations([...(await generations.servedGenerationIds()), 999_999]);
        assert.equal(served.length, 6, 'unknown generations are left out');
        assert.ok(served.every((generation) => generation.lanes === null && generation.chunks?.length === 1), 'without lane data a generation is served with its chunks');
      });
    });

    test('retired content is removed after its grace period; the record and manifest stay for successor verification', async () => {
      await withStore(adapter, async ({ storage }) => {
        const generations = storage.client('acme').generations;
        const old = (await generations.stageAndActivate(generationInput('doc-1', ['old one', 'old two'], { lanes: new Uint8Array([9]) })))!;
        const current = (await generations.stageAndActivate(generationInput('doc-1', ['new'])))!;
        assert.equal(await generations.cleanupRetiredBefore('2000-01-01T00:00:00.000Z'), 0, 'retired after the cutoff: kept');
        assert.deepEqual(textsOf(await generations.chunkTexts([{ generation: old.generation, chunkIndex: 1 }])), ['old two']);
        assert.equal(await generations.cleanupRetiredBefore(new Date(Date.now() + 60_000).toISOString()), 2);
        assert.equal(await generations.cleanupRetiredBefore(new Date(Date.now() + 60_000).toISOString()), 0, 'once');
        assert.deepEqual(textsOf(await generations.chunkTexts([{ generation: old.generation, chunkIndex: 1 }, { generation: current.generation, chunkIndex: 0 }])), [null, 'new']);
        assert.equal((await generations.generation(old.generation))!.state, 'retired');
        assert.deepEqual((await generations.manifest(old.generation))!.manifest, { record_ids: 2, digest: 'd-doc-1' });
      });
    });

    test('the log keeps its retained window: a follower behind its floor is told to rebuild', async () => {
      await withStore(
        adapter,
        async ({ storage }) => {
          const client = storage.client('acme');
          for (let index = 0; index < 70; index++) await client.generations.stageAndActivate(generationInput(`doc-${index}`, ['x']));
          const changes = await client.publicationLog.changesSince(0, 10_000);
          assert.equal(changes.head, 70);
          assert.equal(changes.floor, 60, 'compacted at the 64th append to the last 5');
          assert.deepEqual(changes.entries, [], 'behind the floor: nothing to replay');
          assert.deepEqual((await client.publicationLog.changesSince(65, 10_000)).entries.map((entry) => entry.seq), [66, 67, 68, 69, 70]);
        },
        { logRetained: 5 },
      );
    });

    test('once a fence has begun, an activation or a removal is refused in its own transaction and nothing is logged', async () => {
      await withStore(adapter, async ({ storage }) => {
        const client = storage.client('acme');
        await client.generations.stageAndActivate(generationInput('doc-1', ['x']));
        const staged = await client.generations.stage(generationInput('doc-2', ['y']));
        await storage.authority.setAuthorityMode('FENCING');
        await assert.rejects(client.generations.activateStaged(staged), PublicationPaused);
        await assert.rejects(client.generations.stageAndActivate(generationInput('doc-3', ['z'])), PublicationPaused);
        await assert.rejects(client.purges.begin('doc-1', ['doc-1']), PublicationPaused);
        assert.equal(await client.publicationLog.head(), 1, 'the fence serves what was published before it');
        assert.equal(await client.generations.activeGeneration('doc-2', 'doc-2'), null);
        assert.equal(await client.generations.activeGeneration('doc-3', 'doc-3'), null, 'the refused transaction left nothing behind');
        assert.deepEqual(await client.purges.open('doc-1'), []);
        await storage.authority.setAuthorityMode('MAINTENANCE');
        await assert.rejects(client.generations.activateStaged(staged), PublicationPaused);
        await storage.authority.setAuthorityMode('READY');
        assert.ok(await client.generations.activateStaged(staged));
        assert.equal(await client.publicationLog.head(), 2);
      });
    });

    test("one Client never reads another's generations, chunks, log or usage", async () => {
      await withStore(adapter, async ({ storage }) => {
        const acme = storage.client('acme');
        const other = storage.client('globex');
        const { generation } = (await acme.generations.stageAndActivate(generationInput('shared-id', ['acme secret'])))!;
        assert.equal(await other.generations.generation(generation), null);
        assert.equal(await other.generations.loadGeneration(generation), null);
        assert.equal(await other.generations.manifest(generation), null);
        assert.equal(await other.generations.activeGeneration('shared-id', 'shared-id'), null);
        assert.deepEqual(await other.generations.chunkTexts([{ generation, chunkIndex: 0 }]), [null]);
        assert.deepEqual(await other.generations.chunkRange(generation, 0, 10), []);
        assert.deepEqual(await other.generations.chunkEntities(generation), []);
        assert.deepEqual(await other.generations.loadActiveGenerations([generation]), []);
        assert.equal(await other.publicationLog.head(), 0);
        assert.equal((await other.generations.usage({ documentId: 'x', versionKey: 'x' })).chunks, 0);
        // The same document id under the other Client is its own version.
        const theirs = (await other.generations.stageAndActivate(generationInput('shared-id', ['globex text'])))!;
        assert.equal(theirs.previousGeneration, null);
        assert.equal((await acme.generations.activeGeneration('shared-id', 'shared-id'))!.generation, generation);
        assert.equal(await acme.publicationLog.head(), 1);
        await other.purges.begin('shared-id', ['shared-id']);
        await other.purges.purgeVersion('shared-id', 'shared-id');
        assert.deepEqual(textsOf(await acme.generations.chunkTexts([{ generation, chunkIndex: 0 }])), ['acme secret'], "a purge of one Client's version leaves the other's");
        assert.deepEqual((await storage.knownClientIds()).sort(), ['acme', 'globex']);
      });
    });
  });
}
