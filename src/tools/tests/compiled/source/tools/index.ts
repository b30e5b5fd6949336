export * from "./read.js";
export { writeFile, touch } from "./write.js";
