import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify from 'fastify';
import { Type } from 'typebox';
import { validationMessage } from '../../../src/platform/http/service.js';

/** What `validationMessage` makes of fastify's validation errors for `body` against `schema` (`allErrors`: ajv reports every error). */
async function messageFor(schema: object, body: unknown, allErrors = false): Promise<string | null> {
  const app = Fastify({ ajv: { customOptions: { allErrors } } });
  app.setErrorHandler((err: { validation?: never[]; validationContext?: string }, _req, reply) => {
    reply.send({ message: err.validation ? (validationMessage(err.validationContext ?? 'request', err.validation) ?? null) : 'not a validation error' });
  });
  app.post('/', { schema: { body: schema } }, () => ({ message: 'valid' }));
  const res = await app.inject({ method: 'POST', url: '/', payload: body as object });
  await app.close();
  return res.json().message;
}

const Part = Type.Union([Type.Object({ type: Type.Optional(Type.Union([Type.Literal('intent'), Type.Literal('entity')])) }), Type.Null()]);

test('a field of a few allowed values is named once with the values', async () => {
  assert.equal(await messageFor(Part, { type: 'intents' }), 'body/type must be one of "intent", "entity"');
  assert.equal(await messageFor(Part, { type: 'intent' }), 'valid');
  const Mode = Type.Object({ mode: Type.Unsafe<string>({ type: 'string', enum: ['merge', 'replace'] }) });
  assert.equal(await messageFor(Mode, { mode: 'x' }), 'body/mode must be one of "merge", "replace"');
});

test("errors of other fields stay beside it; errors without alternatives keep ajv's text", async () => {
  const Both = Type.Object({ type: Type.Union([Type.Literal('a'), Type.Literal('b')]), size: Type.Integer() });
  assert.equal(await messageFor(Both, { type: 'c', size: 'x' }, true), 'body/type must be one of "a", "b"; body/size must be integer');
  assert.equal(await messageFor(Type.Object({ size: Type.Integer() }), { size: 'x' }), null);
});
