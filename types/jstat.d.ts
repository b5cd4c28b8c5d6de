/**
 * The part of jStat (https://github.com/jstat/jstat) this project uses: the package ships no type
 * declarations and none are published for it.
 */
declare module 'jstat' {
  interface StudentT {
    /** The quantile: the value below which a Student's t variable of `dof` degrees of freedom falls with probability `p`. */
    inv(p: number, dof: number): number;
  }
  const jstat: { readonly studentt: StudentT };
  export default jstat;
}
