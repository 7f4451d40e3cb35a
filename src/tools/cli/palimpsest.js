#!/usr/bin/env node
// The `palimpsest` command. The CLI is TypeScript sharing code (and the very
// same .wasm files) with the Worker, so it runs through tsx's loader.
import { register } from "tsx/esm/api";

register();
await import("./main.ts");
