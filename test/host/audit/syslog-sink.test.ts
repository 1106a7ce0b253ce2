import dgram from 'node:dgram';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startGateway } from '../../support/gateway.js';
import { createSyslogSink } from '../../../host/audit/syslog-sink.js';

test('audit records reach a loopback UDP syslog as RFC 5424 lines with numbers masked', async () => {
  const socket = dgram.createSocket('udp4');
  const lines: string[] = [];
  socket.on('message', (m) => lines.push(String(m)));
  await new Promise<void>((r) => socket.bind(0, '127.0.0.1', () => r()));
  const port = (socket.address() as AddressInfo).port;
  const gw = await startGateway({ AUDIT_LOG_ENABLED: 'true', AUDIT_LOG_SYSLOG: 'true', AUDIT_SYSLOG_HOST: '127.0.0.1', AUDIT_SYSLOG_PORT: String(port) });
  try {
    gw.gateway.audit.record('job_created', { job_id: 'j1', to: '+15559998888' });
    await gw.gateway.audit.flush();
    const started = Date.now();
    while (!lines.length && Date.now() - started < 3000) await new Promise((r) => setTimeout(r, 20));
    assert.is(lines.length, 1);
    assert.match(lines[0]!, new RegExp(`^<86>1 \\d{4}-\\d\\d-\\d\\dT\\S+Z \\S+ switchboard ${process.pid} audit - \\{`));
    const record = JSON.parse(lines[0]!.slice(lines[0]!.indexOf('{')));
    assert.is(record.event, 'job_created');
    assert.is(record.to, '***8888');
  } finally {
    await gw.close();
    socket.close();
  }
});

test('a non-loopback UDP syslog host is refused', () => {
  assert.throws(() => createSyslogSink({ host: '192.0.2.10', port: 514, socket: '/dev/log', onError: () => {} }), /loopback/);
});

test.run();
