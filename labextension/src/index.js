// JupyterLab 4 plugin: CUDA C in notebook code cells is highlighted as C++.
//
// JupyterLab 4 highlights every code cell of a Python notebook with one language, "ipython"
// (it does not switch language for a cell magic: jupyterlab/jupyterlab#15324). This plugin
// replaces that language, in the editor language registry, with the same Python language
// whose parser hands the CUDA parts of a cell (cudaNest.js says which) to JupyterLab's own
// C++ parser. Everything else about the Python language (indentation, folding, completion
// of builtins) is kept, since only the parser is wrapped.
import {
  HighlightStyle,
  LanguageSupport,
  syntaxHighlighting
} from '@codemirror/language';
import { IEditorLanguageRegistry } from '@jupyterlab/codemirror';
import { parseMixed } from '@lezer/common';
import { tags } from '@lezer/highlight';

import { cudaNest } from './cudaNest';

// JupyterLab's theme leaves type names uncoloured (Python has none to colour); in a kernel
// they are most of what is not a keyword: int, float, void, and __global__ / __shared__,
// which the C++ grammar reads as type names.
const typeColour = syntaxHighlighting(
  HighlightStyle.define([
    { tag: tags.typeName, color: 'var(--jp-mirror-editor-variable-2-color)' }
  ])
);

const plugin = {
  id: 'gpu-barriers-course-cuda-highlight:plugin',
  description: 'Highlights %%cuda cells and CUDA kernel strings as C++',
  autoStart: true,
  requires: [IEditorLanguageRegistry],
  activate: async (app, languages) => {
    const ipython = languages.findByName('ipython');
    const cpp = await languages.getLanguage('C++');
    if (!ipython || !cpp || !cpp.support) {
      console.warn('cuda-highlight: no ipython or C++ language registered; CUDA stays plain');
      return;
    }
    const python = await languages.getLanguage(ipython);  // loads it, sets .support
    const original = python.support;
    const wrapped = original.language.configure(
      { wrap: parseMixed(cudaNest(cpp.support.language.parser)) },
      original.language.name
    );
    // The registry keeps the loaded support on the spec and hands it to every editor made
    // from now on (notebooks open after plugins activate).
    ipython.support = new LanguageSupport(wrapped, [original.support, typeColour]);
  }
};

export default plugin;
