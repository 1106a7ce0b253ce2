import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RequestRenderError, renderForm, renderJson, renderTemplate, renderUrlText, asText, type TemplateLookup } from '../../../../core/declarative/template/template-render.js';

// Every character that changes the structure of some context, and text beyond ASCII.
const VALUE = 'a "quoted" \\ value\nnext line & x=1 / {{ other }} ünïcødé ✓ 🚀';
const values: Record<string, unknown> = { value: VALUE, other: 'INJECTED', count: 3 };
const lookup: TemplateLookup = (expression) => (Object.hasOwn(values, expression) ? values[expression] : undefined);

test('JSON context: a value lands as one JSON string, whatever it holds; a sole placeholder keeps its type', () => {
  const text = renderJson({ text: 'say: {{ value }}', whole: '{{ value }}', count: '{{ count }}', list: ['{{ value }}', '{{ unset }}'], gone: '{{ unset }}' }, lookup);
  const body = JSON.parse(text);
  assert.equal(Object.keys(body), ['text', 'whole', 'count', 'list']);
  assert.is(body.text, `say: ${VALUE}`);
  assert.is(body.whole, VALUE);
  assert.is(body.count, 3);
  assert.equal(body.list, [VALUE, null]);
  assert.not.match(text, /INJECTED/);
});

test('form context: a value with & and = stays one field; names and values are form-encoded', () => {
  const form = renderForm({ message: 'note: {{ value }}', to: '+1555', 'odd name&': '{{ count }}', gone: '{{ unset }}' }, lookup);
  const text = form.toString();
  assert.not.ok(text.includes('\n') || text.includes('"') || text.includes('/'), text);
  const back = new URLSearchParams(text);
  assert.equal([...back.keys()], ['message', 'to', 'odd name&']);
  assert.is(back.get('message'), `note: ${VALUE}`);
  assert.is(back.get('odd name&'), '3');
  assert.not.match(text, /INJECTED/);
});

test('URL context: a value in the path or the query is one component; the structure of the URL cannot change', () => {
  const url = new URL(renderUrlText('https://api.example.com/v1/{{ value }}/send?note={{ value }}', lookup));
  assert.is(url.host, 'api.example.com');
  const segments = url.pathname.split('/');
  assert.is(segments.length, 4, url.pathname);
  assert.is(decodeURIComponent(segments[2]!), VALUE);
  assert.equal([...url.searchParams.keys()], ['note']);
  assert.is(url.searchParams.get('note'), VALUE);
  assert.is(url.hash, '');
  assert.not.match(url.href, /INJECTED/);
});

test('URL context: first in a template a value must be a base URL, in the authority a host name', () => {
  const at = (template: string, value: string) => renderUrlText(template, (e) => (e === 'v' ? value : undefined));
  assert.is(at('{{ v }}/send', 'https://api.example.com/base/'), 'https://api.example.com/base/send');
  for (const bad of ['https://api.example.com/x?y=1', 'https://user:pw@api.example.com', 'javascript:alert(1)', VALUE]) {
    assert.throws(() => at('{{ v }}/send', bad), (err: unknown) => err instanceof RequestRenderError && !(err as Error).message.includes(bad), bad);
  }
  assert.is(at('https://{{ v }}/send', 'eu.example.com:8443'), 'https://eu.example.com:8443/send');
  assert.throws(() => at('https://{{ v }}/send', 'evil.com/x?'), (err: unknown) => err instanceof RequestRenderError);
});

test('URL context, whole: a template that is one placeholder takes a complete receiver URL as it is', () => {
  const url = 'https://hooks.example.com/services/T1/B2?token=a%26b';
  assert.is(renderUrlText('{{ v }}', (e) => (e === 'v' ? url : undefined), { whole: true }), url);
});

test('text context: values as they are, never rendered again as templates', () => {
  assert.is(renderTemplate('[{{ value }}]', lookup, asText), `[${VALUE}]`);
});

test.run();
