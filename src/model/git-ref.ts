/**
 * Git branch names as `git check-ref-format --branch` takes them (the rules of
 * git-check-ref-format(1), via is-git-ref-name-valid), so a clone or a push is not refused at
 * run time for a name that could never work.
 */
import isGitRefNameValid from 'is-git-ref-name-valid';

/** Why `name` cannot be a branch name, or undefined. */
export function branchNameProblem(name: string): string | undefined {
  if (name === '') return 'it is empty';
  if (name.startsWith('-')) return 'it begins with "-"';
  if (name === 'HEAD' || name === '@') return `${name} is not a branch name`;
  if (name.startsWith('refs/')) return 'give the branch name without refs/ (`main`, `discovery/east-1`)';
  if (!isGitRefNameValid(`refs/heads/${name}`))
    return 'git refuses it: no spaces, control characters, ~ ^ : ? * [ \\, "..", "@{", "//", a part that begins with "." or ends with ".lock", or a "/" or "." at the end';
  return undefined;
}
