// One lint configuration for every workspace.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: ["**/node_modules/**", "**/dist/**", "charts/**", "k8s/**", "**/drizzle/**"],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["**/*.ts", "**/*.tsx"],
    rules: {
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_" },
      ],
      "@typescript-eslint/consistent-type-imports": "error",
      // Configuration is parsed once, in each process's config.ts.
      "no-restricted-properties": [
        "error",
        {
          object: "process",
          property: "env",
          message: "Read the environment only in a config.ts; pass the parsed config in.",
        },
      ],
      "no-console": "error",
    },
  },
  {
    // The only modules that read the environment: each process's config.ts, the local tools, and
    // tests and benchmarks that start processes with a given environment.
    files: ["**/config.ts", "tools/**/*.ts", "test/**/*.ts", "**/test/**/*.ts", "**/bench/**/*.ts"],
    rules: { "no-restricted-properties": "off" },
  },
  {
    // The examples are programs a customer runs with Node, outside the workspaces.
    files: ["examples/**/*.mjs"],
    languageOptions: { globals: { process: "readonly", console: "readonly" } },
  },
  {
    // Programs that talk to a person on a terminal, and tests.
    files: [
      "tools/**/*.ts",
      "**/cli/**/*.ts",
      "**/*.test.ts",
      "test/**/*.ts",
      "**/test/**/*.ts",
      "**/bench/**/*.ts",
    ],
    rules: { "no-console": "off" },
  },
);
