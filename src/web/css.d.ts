// Stylesheets imported for their side effect are bundled by Bun's HTML build.
declare module "*.css";
