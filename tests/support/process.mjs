// A child process run to its end, for tests of commands (the binary's CLI, cargo deny, the
// linter, the image's health check).
import { spawn } from 'node:child_process';

/**
 * Runs `file` with `args` (`options` as spawn's: cwd, env, uid, gid), with `input` as its
 * standard input if given (else none); resolves to { code, stdout, stderr } once both
 * outputs are read.
 */
export function runProcess(file, args, { input, ...options } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'], ...options });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.once('error', reject);
    // 'close', not 'exit': only then has all of the output been read.
    child.once('close', (code) => resolve({ code, stdout, stderr }));
    if (input !== undefined) {
      // A command may exit without reading all of it (EPIPE); its exit says what happened.
      child.stdin.on('error', () => {});
      child.stdin.end(input);
    }
  });
}
