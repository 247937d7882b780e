/**
 * Compile-time check that a presenter returns exactly the documented keys, nested objects
 * included: `true` or a type error where it is used (`const _check: SameKeys<A, B> = true`).
 * Value types are checked at run time, by the contract tests, against every response.
 */
type Keys<T> = T extends readonly unknown[] ? never : T extends object ? keyof T : never;
type Obj<T> = T extends readonly unknown[] ? never : T extends object ? T : never;

export type SameKeys<A, B> = [Keys<A>] extends [Keys<B>]
  ? [Keys<B>] extends [Keys<A>]
    ? {
        [K in Keys<A> & Keys<B>]: [Obj<NonNullable<A[K & keyof A]>>] extends [never]
          ? true
          : SameKeys<Obj<NonNullable<A[K & keyof A]>>, Obj<NonNullable<B[K & keyof B]>>>;
      }[Keys<A> & Keys<B>] extends true
      ? true
      : false
    : false
  : false;

/**
 * Compile-time check that a documented enum has exactly a union type's members
 * (`const _c: SameUnion<A, B> = true`).
 */
export type SameUnion<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
