// A child process run to its end, for tests of commands (the binary's CLI, cargo deny, the
// linter, the image's health check).
import { spawn } from 'node:child_process';

/**
 * Runs `file` with `args` (`options` as spawn's: cwd, env, uid, gid), writing `input` to its
 * standard input; resolves to { code, stdout, stderr } once both outputs are read.
 */
export function runProcess(file, args, { input = '', ...options } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, options);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.once('error', reject);
    // 'close', not 'exit': only then has all of the output been read.
    child.once('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}
