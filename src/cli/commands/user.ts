import { Command } from 'commander';
import { withResources } from '../../root/resources.js';
import type { Store } from '../../store/db.js';
import { addUser, removeUser, UserError, usersOf } from '../../web/users.js';
import { settingsFor } from '../context.js';

/**
 * The password, never from the command line (it would sit in the shell history and `ps`): typed twice
 * without echo at a terminal, else the first line of stdin (`printf '%s\n' "$PW" | reviewwatch user add`).
 */
async function readPassword(name: string): Promise<string> {
  const stdin = process.stdin;
  if (!stdin.isTTY) {
    const chunks: Buffer[] = [];
    for await (const chunk of stdin) chunks.push(Buffer.from(chunk as Uint8Array));
    return (Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '').trimEnd();
  }
  const first = await promptHidden(`Password for ${name}: `);
  const second = await promptHidden('Again: ');
  if (first !== second) throw new UserError('the two passwords differ; nothing was changed');
  return first;
}

function promptHidden(prompt: string): Promise<string> {
  const stdin = process.stdin;
  process.stderr.write(prompt);
  return new Promise((resolve, reject) => {
    let typed = '';
    const done = (err?: Error) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off('data', onData);
      process.stderr.write('\n');
      if (err) reject(err);
      else resolve(typed);
    };
    const onData = (data: Buffer) => {
      for (const char of data.toString('utf8')) {
        if (char === '\r' || char === '\n') return done();
        if (char === '\u0003' || char === '\u0004') return done(new UserError('cancelled'));
        if (char === '\u007f' || char === '\b') typed = typed.slice(0, -1);
        else typed += char;
      }
    };
    stdin.setRawMode(true);
    stdin.resume();
    stdin.on('data', onData);
  });
}

function withStore<T>(command: Command, work: (store: Store) => Promise<T> | T): Promise<T> {
  return withResources(settingsFor(command), ({ store }) => work(store));
}

export function userCommand(): Command {
  const user = new Command('user').description('manage who may log in to the inbox');
  user
    .command('add')
    .description('add a user; the password is read from stdin (typed twice, hidden, at a terminal)')
    .argument('<name>', 'lower-case letters, digits, ".", "_" or "-"')
    .option('--email <address>', 'their email address')
    .action(async (name: string, options: { email?: string }, command: Command) => {
      await withStore(command, async (store) => {
        const password = await readPassword(name);
        const added = await addUser(store, { name, email: options.email, password });
        process.stdout.write(`Added user ${added.name}${added.email ? ` <${added.email}>` : ''}.\n`);
      });
    });
  user
    .command('list')
    .description('list the users')
    .option('--json', 'print JSON for scripts')
    .action(async (options: { json?: boolean }, command: Command) => {
      await withStore(command, (store) => {
        const users = usersOf(store);
        if (options.json) {
          const rows = users.map((u) => ({
            name: u.name,
            email: u.email,
            createdAt: u.createdAt.toISOString(),
          }));
          process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
        } else if (users.length === 0) {
          process.stdout.write('No users yet: add one with `reviewwatch user add NAME`.\n');
        } else {
          const width = Math.max(...users.map((u) => u.name.length));
          for (const u of users) {
            process.stdout.write(
              `${u.name.padEnd(width)}  ${(u.email ?? '-').padEnd(30)}  added ${u.createdAt.toISOString().slice(0, 10)}\n`,
            );
          }
        }
      });
    });
  user
    .command('remove')
    .description('remove a user and end their sessions (their name stays in the audit trail)')
    .argument('<name>')
    .action(async (name: string, _options: unknown, command: Command) => {
      await withStore(command, (store) => {
        removeUser(store, name);
        process.stdout.write(`Removed user ${name}; their sessions are ended.\n`);
      });
    });
  return user;
}
