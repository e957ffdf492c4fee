#!/usr/bin/env node
import { start } from "./start.js"

start("main.js")
