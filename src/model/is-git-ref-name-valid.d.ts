/** Types of the npm package is-git-ref-name-valid (it ships none). */
declare module 'is-git-ref-name-valid' {
  /** true when `name` is a well-formed git ref name (`onelevel`: one that need not contain a `/`) */
  export default function isGitRefNameValid(name: string, onelevel?: boolean): boolean;
}
