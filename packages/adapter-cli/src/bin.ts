#!/usr/bin/env node
import { main } from "./Cli.js"

process.exitCode = await main(process.argv)
